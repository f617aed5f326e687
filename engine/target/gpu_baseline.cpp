// SPDX-License-Identifier: Apache-2.0
#include "engine/target/gpu_baseline.h"

#include <algorithm>

#include "engine/kernel/library.h"
#include "sim/gpu_model.h"

namespace pim {
Baseline a100Baseline(const Problem& p) {
  Baseline g;
  g.name = "gpu";
  const Kernel& k = p.kernel();
  const std::string lib = libraryKernelOf(k);
  sim::GpuEstimate est;
  if (lib == "attn") {
    est = sim::gpuDecodeAttention(p.dimSize("b"), p.dimSize("h"), p.dimSize("l"), p.dimSize("d"));
    g.summary = "A100: QK^T, softmax and PV as three kernels, one thread block per head (attacc.md)";
  } else if (lib == "gemv") {
    est = sim::gpuGemv(p.dimSize("b"), p.dimSize("out"), p.dimSize("in"));
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
      for (int l : st.loops) {
        const auto [lo, hi] = loopBounds(k, l, p.shape());
        iters *= static_cast<double>(hi - lo);
      }
      gk.flops += (st.op == AssignOp::Add ? 2 : 1) * iters;
    }
    gk.threadBlocks = std::max<std::int64_t>(1, static_cast<std::int64_t>(outElems / 128));
    est = sim::gpuEstimate(gk);
    g.summary = "A100: inputs read and outputs written once, one thread block per 128 outputs (attacc.md)";
  }
  g.available = true;
  g.eval.provenance = Provenance::Analytic;
  g.eval.timeNs = est.time_s * 1e9;
  g.eval.energyPj = est.energy_pJ;
  return g;
}

}  // namespace pim
