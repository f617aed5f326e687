// SPDX-License-Identifier: Apache-2.0
#include "sim/gpu_model.h"

#include <algorithm>

namespace pim::sim {

GpuEstimate gpuEstimate(const GpuKernel& k, const GpuParams& p) {
  const double n = static_cast<double>(std::max<int64_t>(1, k.threadBlocks));
  const double waves = static_cast<double>((k.threadBlocks + p.sms - 1) / p.sms);
  const double u = n / (std::max(1.0, waves) * p.sms);  // SM utilisation of the last wave
  const double tc = k.flops / (p.peakFlops * p.flopEff * u);
  const double tm = k.offchipBytes / (p.peakBw * p.bwEff * u);
  GpuEstimate e;
  e.time_s = std::max(tc, tm);
  e.memoryBound = tm >= tc;
  // Every off-chip byte also passes L2, L1 and the register file once.
  e.energy_pJ = k.offchipBytes * (p.pJPerOffchipByte + p.pJPerL2Byte + p.pJPerL1Byte + p.pJPerRegByte) +
                k.flops / 2.0 * p.pJPerMac;
  return e;
}

GpuEstimate gpuDecodeAttention(int64_t batch, int64_t heads, int64_t len, int64_t headDim,
                               const GpuParams& p) {
  const double bh = double(batch * heads), L = double(len), d = double(headDim), b2 = 2.0;
  const int64_t blocks = batch * heads;
  GpuKernel qk{2.0 * bh * L * d, b2 * bh * (L * d + d + L), blocks};
  GpuKernel sm{5.0 * bh * L, b2 * bh * 2.0 * L, blocks};
  GpuKernel pv{2.0 * bh * L * d, b2 * bh * (L * d + L + d), blocks};
  GpuEstimate r;
  for (const GpuKernel& k : {qk, sm, pv}) {
    const GpuEstimate e = gpuEstimate(k, p);
    r.time_s += e.time_s;
    r.energy_pJ += e.energy_pJ;
    r.memoryBound = r.memoryBound && e.memoryBound;
  }
  return r;
}

GpuEstimate gpuGemv(int64_t batch, int64_t out, int64_t in, const GpuParams& p) {
  GpuKernel k{2.0 * double(batch * out * in), 2.0 * double(out * in + batch * (in + out)),
              std::max<int64_t>(1, (out + 127) / 128)};
  return gpuEstimate(k, p);
}

}  // namespace pim::sim
