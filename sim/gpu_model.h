// SPDX-License-Identifier: Apache-2.0
#pragma once
// A100 (HBM3) GPU-only baseline of attacc.md: time = max(FLOPs / (312e12*0.8*u), bytes / (3352e9*0.85*u)),
// u = n / (ceil(n/108)*108) for n thread blocks; energy from per-byte / per-MAC figures of the same spec.
#include <cstdint>

namespace pim::sim {

struct GpuParams {
  double peakFlops = 312e12, flopEff = 0.8;  // FP16 tensor peak and achievable fraction
  double peakBw = 3352e9, bwEff = 0.85;      // HBM3 bandwidth and achievable fraction
  int sms = 108;
  double pJPerOffchipByte = 28.72, pJPerL2Byte = 2.4, pJPerL1Byte = 1.28, pJPerRegByte = 0.0675;
  double pJPerMac = 0.32;
};

struct GpuKernel {
  double flops = 0;  // 2 per MAC
  double offchipBytes = 0;
  int64_t threadBlocks = 1;
};

struct GpuEstimate {
  double time_s = 0;
  double energy_pJ = 0;
  bool memoryBound = true;
};

GpuEstimate gpuEstimate(const GpuKernel& k, const GpuParams& p = {});
// Decode attention (QK^T, softmax, PV; one thread block per head). Off-chip bytes: K, V, the query and
// output, and the score matrix written by QK^T, read and written by softmax and read by PV (FP16 throughout).
GpuEstimate gpuDecodeAttention(int64_t batch, int64_t heads, int64_t len, int64_t headDim,
                               const GpuParams& p = {});
// Decode GEMV y[out] = W[out][in] x[in] over `batch` vectors (one thread block per 128 output rows).
GpuEstimate gpuGemv(int64_t batch, int64_t out, int64_t in, const GpuParams& p = {});

}  // namespace pim::sim
