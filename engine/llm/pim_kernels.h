// SPDX-License-Identifier: Apache-2.0
// The PIM side of an LLM run: what a decode step's GEMV and attention kernels cost on a PIM backend, with
// the vendor tiling (simulated once per shape) or with DCC's choice, served from DCC's lookup table (section
// 4.4) and compiled when a shape is not in it: drafts generated, pruned, ranked by the shipped predictor and
// the best few confirmed by simulation, never every draft of every step.
#pragma once
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/llm/decode_ops.h"

namespace pim {
class ResultsStore;
class Predictor;
}  // namespace pim

namespace pim::llm {

enum class Tiling { Vendor, Dcc };
const char* tilingName(Tiling t);  // "vendor", "dcc"

/// One part of a draft without its tile sizes: (groups, cores per group, representative). Two schedules with
/// the same signature place a growing tensor the same way (a longer sequence only lengthens each core's
/// tile); a different one means the resident data must be laid out again.
using LayoutSignature = std::vector<std::array<int, 3>>;

struct PimRun {
  bool available = false;
  std::string reason;  // why not, when unavailable
  double ns = 0;       // one call: input rearrangement, compute, output rearrangement (resident data stays)
  double energyPj = 0;
  std::string schedule;  // "vendor" or "draft 812 [(16,1,..)...]"
  LayoutSignature layout;
  double preloadNs = 0;       // placing the resident tensors in this schedule's layout once (DCC's preLoad)
  std::string source;         // "simulated" (vendor), "compiled", "lookup table", "store"
  double compileSeconds = 0;  // wall time of the compilation that produced it (0 for a table hit)
};

struct PimTableOptions {
  unsigned threads = 0;  // simulation workers of a compilation (0: one per hardware thread)
  int topK = 4;          // drafts confirmed by simulation per compilation
  /// Drafts the model ranks after the analytic screen (ExploreOptions::predictLimit): attention's spaces hold
  /// ~4 x 10^5 kept drafts, and the screen's best 4,000 hold the pick (docs/llm.md, "Compilation").
  std::size_t predictLimit = 4000;
  ResultsStore* store = nullptr;  // optional: rows shared with `explore --db`
  const std::atomic<bool>* cancel = nullptr;
};

/// Thread-safe; entries are kept for the table's life.
class PimKernelTable {
 public:
  /// `backend` as the run uses it (what-if edits applied). Loads the backend's shipped predictor, if any.
  PimKernelTable(Backend backend, PimTableOptions o = {});
  ~PimKernelTable();

  const Backend& backend() const { return m_backend; }

  /// `k` under `t`. Dcc: the table's entry, else compiled now (`compileSeconds` says how long) and kept.
  /// Unavailable (with the reason) when the backend cannot run the kernel.
  PimRun run(const PimKernel& k, Tiling t);
  /// `k` with the draft whose parts have `layout` (groups, cores, representative) and the tile sizes `k`'s
  /// shape gives them: the schedule that keeps data laid out for another shape where it is. Simulated once
  /// and kept; unavailable when no draft of `k`'s space has that layout.
  PimRun runLayout(const PimKernel& k, const LayoutSignature& layout);
  /// Compiles the kernels of `kernels` DCC's table lacks, `workers` at a time (0: one per hardware thread).
  /// Each keeps its own compilation time, and the first run() that asks for it reports that time as if it had
  /// compiled it then: a request that will meet a shape pays for it at the step it first appears, however
  /// PIMScope scheduled the work. Stops at the next kernel once `cancel` is set.
  void prepare(const std::vector<PimKernel>& kernels, unsigned workers,
               const std::atomic<bool>* cancel = nullptr);
  /// Simulates, `workers` at a time, runLayout(k, layout) for each of `kernels` whose DCC pick (compiled
  /// already) splits differently from `layout`: what the steps ahead ask for while the KV cache stays in
  /// `layout`. Changes no result, only when the simulations run; compiles nothing and charges nothing.
  /// Stops at the next kernel once `cancel` is set.
  void prefetchLayouts(const std::vector<PimKernel>& kernels, const LayoutSignature& layout, unsigned workers,
                       const std::atomic<bool>* cancel = nullptr);
  /// Whether runLayout(k, layout) would answer without simulating.
  bool holdsLayout(const PimKernel& k, const LayoutSignature& layout) const;
  /// Whether DCC's table already holds `k` (a run would not compile).
  bool holds(const PimKernel& k) const;
  /// Shapes in DCC's table.
  std::size_t size() const;
  /// Whether compilations rank drafts with a trained model (else an exhaustive sample).
  bool hasPredictor() const { return m_predictor != nullptr; }

 private:
  PimRun simulateVendor(const PimKernel& k) const;
  PimRun compile(const PimKernel& k, unsigned threads);

  Backend m_backend;
  PimTableOptions m_options;
  std::shared_ptr<const Predictor> m_predictor;
  mutable std::mutex m_mutex;
  std::map<PimKernel, PimRun> m_vendor, m_dcc;
  std::map<std::pair<PimKernel, LayoutSignature>, PimRun> m_layouts;
  std::set<PimKernel> m_uncharged;  // compiled ahead by prepare(), not yet asked for
};

}  // namespace pim::llm
