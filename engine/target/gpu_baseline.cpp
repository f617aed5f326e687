// SPDX-License-Identifier: Apache-2.0
#include "engine/target/gpu_baseline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/kernel/intrinsics.h"
#include "engine/kernel/library.h"

namespace pim {

namespace {
const char* const kGpuEnergies[] = {"energy.GPU_OFFCHIP_BYTE", "energy.GPU_L2_BYTE", "energy.GPU_L1_BYTE",
                                    "energy.GPU_REG_BYTE", "energy.GPU_MAC"};

/// " (host GPU as edited: 6704 GB/s, 312 TFLOP/s)" when the peaks differ from the reference A100, else "":
/// the summary of the shipped backends stays what it was.
std::string editedNote(const sim::GpuParams& g) {
  const sim::GpuParams ref;
  if (g.peakBw == ref.peakBw && g.peakFlops == ref.peakFlops) return {};
  char buf[96];
  std::snprintf(buf, sizeof buf, " (host GPU as edited: %g GB/s, %g TFLOP/s)", g.peakBw / 1e9,
                g.peakFlops / 1e12);
  return buf;
}
}  // namespace

std::optional<sim::GpuParams> declaredHostGpu(const Backend& b) {
  for (const char* e : kGpuEnergies)
    if (!b.energyPj.count(e)) return std::nullopt;
  sim::GpuParams g;  // the A100's SM count and achievable fractions (attacc.md) stay the model's
  g.peakBw = b.system.hostBandwidthGBps * 1e9;
  g.peakFlops = b.system.hostTflops * 1e12;
  g.pJPerOffchipByte = b.energyPj.at(kGpuEnergies[0]);
  g.pJPerL2Byte = b.energyPj.at(kGpuEnergies[1]);
  g.pJPerL1Byte = b.energyPj.at(kGpuEnergies[2]);
  g.pJPerRegByte = b.energyPj.at(kGpuEnergies[3]);
  g.pJPerMac = b.energyPj.at(kGpuEnergies[4]);
  return g;
}

std::string hostGpuUnreadReason(const Backend& b) {
  if (declaredHostGpu(b)) return {};
  return b.name +
         " does not describe the GPU beside it (no energy.GPU_* figures), so GPU-only execution is "
         "attacc.md's reference A100 (3352 GB/s, 312 TFLOP/s) and no result reads this field";
}

Baseline a100Baseline(const Problem& p) {
  Baseline g;
  g.name = "gpu";
  const std::optional<sim::GpuParams> declared = declaredHostGpu(p.backend());
  const sim::GpuParams gpu = declared.value_or(sim::GpuParams{});
  if (gpu.peakBw <= 0 || gpu.peakFlops <= 0) {
    g.reason = "the host GPU of " + p.backend().name + " has " +
               (gpu.peakBw <= 0 ? "no memory bandwidth (system.hostBandwidthGBps = 0)"
                                : "no FP16 throughput (system.hostTflops = 0)") +
               ": GPU-only execution cannot be timed";
    return g;
  }
  const Kernel& k = p.kernel();
  const std::string lib = libraryKernelOf(k);
  sim::GpuEstimate est;
  if (lib == "attn") {
    est = sim::gpuDecodeAttention(p.dimSize("b"), p.dimSize("h"), p.dimSize("l"), p.dimSize("d"), gpu);
    g.summary = "A100: QK^T, softmax and PV as three kernels, one thread block per head (attacc.md)";
  } else if (lib == "gemv") {
    est = sim::gpuGemv(p.dimSize("b"), p.dimSize("out"), p.dimSize("in"), gpu);
    g.summary = "A100: one thread block per 128 output rows (attacc.md)";
  } else {
    // Generic memory-bound estimate: every input read and every output written once, 2 FLOPs per MAC.
    sim::GpuKernel gk;
    double outElems = 0;
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      if (k.tensors[t].role == TensorRole::Temp) continue;
      double elems = 1;
      for (auto e : tensorExtents(k, static_cast<int>(t), p.shape())) elems *= static_cast<double>(e);
      gk.offchipBytes += elems * static_cast<double>(dtypeBytes(k.tensors[t].dtype));
      if (k.tensors[t].role == TensorRole::Output) outElems += elems;
    }
    for (const Statement& st : k.statements) {
      double iters = 1;
      const auto intrinsic = intrinsicOf(st);
      for (int l : st.loops) {
        const auto [lo, hi] = loopBounds(k, l, p.shape());
        const auto n = static_cast<double>(hi - lo);
        // hist picks one bin per value and search bisects: neither visits its loop's every index.
        if (intrinsic && l == st.value.reduceVar && *intrinsic == Intrinsic::Hist) continue;
        iters *= intrinsic && l == st.value.reduceVar && *intrinsic == Intrinsic::Search
                     ? std::max(1.0, std::ceil(std::log2(n)))
                     : n;
      }
      gk.flops += (st.op == AssignOp::Add ? 2 : 1) * iters;
    }
    gk.threadBlocks = std::max<std::int64_t>(1, static_cast<std::int64_t>(outElems / 128));
    est = sim::gpuEstimate(gk, gpu);
    g.summary = "A100: inputs read and outputs written once, one thread block per 128 outputs (attacc.md)";
  }
  g.summary += editedNote(gpu);
  g.available = true;
  g.eval.provenance = Provenance::Analytic;
  g.eval.timeNs = est.time_s * 1e9;
  g.eval.energyPj = est.energy_pJ;
  return g;
}

}  // namespace pim
