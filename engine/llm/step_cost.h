// SPDX-License-Identifier: Apache-2.0
// The cost of one decode step (and of the prefill) of a whole model on one system: every operator of a
// decoder layer placed by the system, timed on the GPU model (gpu_ops.h) or on the PIM backend
// (pim_kernels.h), the activations crossing between them over the GPU-PIM link, the KV-cache append, all
// times the layer count.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/llm/decode_ops.h"
#include "engine/llm/pim_kernels.h"
#include "engine/llm/system.h"

namespace pim::llm {

/// Energy of a step by where it is spent; each part's source is energySourceOf.
enum class EnergyPart { GpuMemory, GpuOnChip, GpuCompute, GpuNvlink, PimKernels, Link, KvAppend };
inline constexpr int kEnergyPartCount = 7;
const char* energyPartName(EnergyPart p);  // "gpu_memory", ...
const char* energySourceOf(EnergyPart p);  // "attacc.md (AttAcc simulator src/config.py): 28.72 pJ/B", ...

/// One operator of one layer at one step, as the system placed it.
struct OpCost {
  std::string op;  // qkv, attention, proj, ffn_up, ..., link, kv_append
  Phase phase = Phase::Other;
  std::string shape;  // the PIM kernel ("gemv[b=1,out=15360,in=5120]") or the GPU operator's m x n x k
  Placement where = Placement::Gpu;
  std::string schedule;                         // "A100", "vendor", "draft 812 ..."
  double ns = 0;                                // as placed, after any overlap
  double gpuNs = -1, pimNs = -1, splitNs = -1;  // each option's time, -1 where it is not one
  double margin = 0;  // the best other option over the chosen one (>= 1); 0: no alternative
  double energyPj = 0;
  double compileSeconds = 0;        // a PIM schedule compiled for this step
  std::optional<PimKernel> kernel;  // what ran on PIM, when something did
  LayoutSignature layout;           // attention on PIM: its K/V layout
  double preloadNs = 0;             // attention on PIM: laying the cache out in that layout
  bool once = false;                // runs once per step (the LM head), not in every layer
};

struct StepCost {
  std::vector<OpCost> ops;                    // one layer, then the LM head's (OpCost::once) when timed
  std::array<double, kPhaseCount> phaseNs{};  // whole model
  std::array<double, kEnergyPartCount> energyPj{};
  double ns = 0;  // whole model
  double kvAppendNs = 0;
  double compileSeconds = 0;
  std::string unavailable;  // why the system cannot run this step ("" when it can)
};

/// The hardware around the model: the GPUs and the PIM devices beside each.
struct LlmHardware {
  GpuSystem gpu;                  // gpus, link bandwidth, ...
  int bytes = 2;                  // per element: 2 (FP16) or 1 (FP8)
  PimKernelTable* pim = nullptr;  // the PIM backend's kernels; null for GPU-only runs
};

/// Throws InputError when `sys` cannot run on `hw` at all (no PIM backend, an element type the PIM kernels
/// lack), before anything is compiled.
void checkPimRun(const LlmHardware& hw, SystemChoice sys);

/// One decode step of `batch` sequences at `context` keys on `system`; with `lmHead`, the final norm and the
/// LM head once after the layers (placed as QKV is: on PIM where the system may and it is faster).
StepCost decodeStepCost(const LlmModel& m, const LlmHardware& hw, SystemChoice system, std::int64_t batch,
                        std::int64_t context, bool lmHead = false);

/// The prefill of `batch` x `lin` tokens on the GPU, plus, when attention runs on PIM, the prompt's K and V
/// moved to the PIM devices over the link (AttAcc's summarization stage); with `lmHead`, the LM head on each
/// sequence's last token (the first output token).
StepCost prefillCost(const LlmModel& m, const LlmHardware& hw, SystemChoice system, std::int64_t batch,
                     std::int64_t lin, bool lmHead = false);

/// The PIM-to-host bandwidth ratio AttAcc_Full's FFN share is computed from: the PIM units' aggregate
/// bandwidth streaming rows (ACTAB, a MACAB per column at the MAC spacing, PREA) over the host GPU's memory
/// bandwidth. AttAcc's simulator states 9 under the power constraint and 16 without (src/config.py).
double pimBandwidthScale(const Backend& b);

}  // namespace pim::llm
