// SPDX-License-Identifier: Apache-2.0
// An LLM request end to end (DCC section 5.2, Fig. 11): the prompt's prefill on the GPU, then one decode step
// per output token after the first, each attending one key more, on every system asked for; with the
// one-time residency of the weights and the KV cache, the per-token series, the breakdown per phase, energy
// per token and where every kernel ran. `pimscope-cli llm` and the window's LLM view both run this.
#pragma once
#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/llm/step_cost.h"

namespace pim {
class ResultsStore;
}

namespace pim::llm {

/// The hardware and model of a run; fixed for an LlmSimulator's life (its PIM kernel table is keyed by it).
struct LlmSetup {
  std::string model = "gpt3-13b";  // a shipped name or a .json path
  std::string dtype;               // "" (the model's), "fp16" or "fp8"
  int gpus = 1;                    // A100s in tensor parallel, 1 to 8
  int pimDevicesPerGpu = 5;        // HBM-PIM stacks beside each GPU (the backend's system.devices)
  bool powerConstraint = true;     // AttAcc's MACAB spacing under the power constraint
  std::string backend = "attacc";  // the PIM backend (a DRAM-PIM backend with attention and GEMV)
  std::vector<std::pair<std::string, double>> edits;  // what-if parameter edits on the backend
  bool checkCapacity = true;      // refuse a request whose weights and KV cache do not fit the memory
  unsigned threads = 0;           // simulation workers of a compilation
  int topK = 4;                   // drafts a compilation confirms by simulation
  bool lmHead = false;            // time the final norm and LM head (AttAcc and DCC leave them out)
  ResultsStore* store = nullptr;  // optional lookup-table rows shared with `explore --db`
};

/// One row of the decision table: an operator of the decoder layer over a run of steps with one placement.
struct KernelDecision {
  std::string op;  // qkv, attention, proj, ffn_up, ffn_gate, ffn_down; lm_head (once per step) when timed
  Phase phase = Phase::Other;
  std::string shape;  // "gemv[b=1,out=15360,in=5120]"; attention: "attn[b=1,h=40,l=2049..2175,d=128]"
  Placement where = Placement::Gpu;
  std::string schedule;
  double gpuUs = -1, pimUs = -1, splitUs = -1;  // at the first step of the run of steps; -1: not an option
  double margin = 0;                            // smallest over the steps; 0: no alternative was weighed
  std::int64_t firstStep = 0, lastStep = 0;     // decode steps, 1-based
};

struct TokenStep {
  std::int64_t step = 0, context = 0;  // decode step (1-based) and the keys it attends
  double ms = 0;                       // the whole model, this step (compilation excluded)
  double compileMs = 0;                // online compilation this step triggered
  std::array<double, kPhaseCount> phaseMs{};
  double relayoutMs = 0;  // the KV cache laid out again for a new attention layout
};

struct MemoryUse {
  std::int64_t weightBytes = 0;    // every GPU's share together
  std::int64_t kvBytes = 0;        // the cache at the request's last token
  std::int64_t capacityBytes = 0;  // the memory of every PIM device
  double weightPreloadMs = 0;      // laying every PIM-run layer's weights out once, at model load
  int relayouts = 0;               // steps whose attention schedule needed another K/V layout
  std::string policy;              // how schedule changes are handled, one line
};

struct SystemResult {
  std::string system;
  bool available = false;
  std::string reason;  // why not, when unavailable
  double prefillMs = 0;
  std::vector<TokenStep> steps;  // decode steps 1 .. lout-1
  double firstTokenMs = 0, lastTokenMs = 0, meanTokenMs = 0;
  double compileMs = 0;                             // online compilation during the request (in totalMs)
  double totalMs = 0;                               // prefill + decode + compilation
  double tokensPerS = 0;                            // batch x lout / total
  std::array<double, kPhaseCount> breakdownMs{};    // mean per decode step
  double kvAppendMs = 0;                            // mean per decode step (inside attention)
  double energyPerTokenMj = 0;                      // decode energy per generated token
  std::array<double, kEnergyPartCount> energyMj{};  // per generated token, by part
  MemoryUse memory;
  std::vector<KernelDecision> decisions;
};

struct InferenceResult {
  std::string model, display, dtype;
  std::int64_t batch = 1, lin = 0, lout = 0;
  int gpus = 1;
  bool lmHead = false;  // the LM head was timed (Phase::LmHead is 0 otherwise)
  std::vector<SystemResult> systems;
};

/// The phases a report of `r` shows, in order: all of them, the LM head's only when it was timed.
inline int reportedPhaseCount(const InferenceResult& r) {
  return r.lmHead ? kPhaseCount : static_cast<int>(Phase::LmHead);
}

struct LlmProgress {
  std::string system;
  std::size_t systemIndex = 0, systems = 0;
  std::int64_t step = 0, steps = 0;
  std::size_t tableSize = 0;  // shapes in DCC's lookup table
};

/// A model on its hardware, with DCC's lookup table kept across requests (serve and the window reuse it).
class LlmSimulator {
 public:
  /// Loads the model and the backend; throws InputError for an unknown model or backend, a bad edit, a
  /// backend without GEMV or attention, or GPUs outside 1..8.
  explicit LlmSimulator(LlmSetup setup);
  ~LlmSimulator();

  const LlmSetup& setup() const { return m_setup; }
  /// Times the LM head from the next request on (or stops); the lookup table is kept. Throws InputError for a
  /// model without a vocab.
  void setLmHead(bool on);
  const LlmModel& model() const { return m_model; }
  int bytes() const { return m_hw.bytes; }
  PimKernelTable& table() { return *m_table; }

  /// One request on one system. Throws InputError for a size of zero or beyond the model's limits; a
  /// request that does not fit the memory (with checkCapacity) or a system that cannot run comes back
  /// unavailable with the reason and the numbers.
  SystemResult request(SystemChoice system, std::int64_t batch, std::int64_t lin, std::int64_t lout,
                       const std::function<void(std::int64_t step)>& onStep = {},
                       const std::atomic<bool>* cancel = nullptr);
  /// The memory the request needs and the memory there is.
  MemoryUse memoryUseOf(std::int64_t batch, std::int64_t lin, std::int64_t lout) const;

 private:
  /// Before keepOrRelayout at the step whose attention is `now` (`attention`[from]): when its schedule in the
  /// `current` layout is not known yet, simulates it and the next steps' side by side.
  void prefetchLayouts(const OpCost& now, const std::vector<PimKernel>& attention, std::size_t from,
                       const LayoutSignature& current, const std::atomic<bool>* cancel);
  /// A step whose attention pick lays the KV cache out unlike `current`: keeps the current layout (its
  /// schedule at this shape) or pays the relayout, whichever costs less over the `remaining` steps.
  void keepOrRelayout(OpCost& attention, const LayoutSignature& current, std::int64_t remaining, TokenStep& t,
                      MemoryUse& memory);

  LlmSetup m_setup;
  LlmModel m_model;
  LlmHardware m_hw;
  std::unique_ptr<PimKernelTable> m_table;
};

/// Every system on one request; `onProgress` is called from the running thread after every step.
InferenceResult runInference(LlmSimulator& sim, const std::vector<SystemChoice>& systems, std::int64_t batch,
                             std::int64_t lin, std::int64_t lout,
                             const std::function<void(const LlmProgress&)>& onProgress = {},
                             const std::atomic<bool>* cancel = nullptr);

/// The largest request size accepted (tokens in or out, batch): beyond any deployed context.
inline constexpr std::int64_t kMaxTokens = 1 << 20;
inline constexpr std::int64_t kMaxBatch = 1 << 16;

}  // namespace pim::llm
