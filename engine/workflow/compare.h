// SPDX-License-Identifier: Apache-2.0
// Compare backends: the same kernel at the same shape on 2 to 4 backends, each with its best draft, against a
// pinned baseline (GPU-only execution or one of the backends), ending in a one-line verdict.
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/search/explorer.h"

namespace pim {

/// How the best draft of one problem is found: the shipped predictor of its backend when there is one (top-k
/// simulated), else an exhaustive search capped at `maxSimulations` (an even sample of the kept drafts).
struct BestDraftOptions {
  EvalOptions eval;
  std::size_t maxSimulations = 400;
  int topK = kDefaultTopK;
  const std::atomic<bool>* cancel = nullptr;  // optional
  /// Called from the searching thread as Explorer::run reports (about every 50 ms); optional.
  std::function<void(const ExploreProgress&)> onProgress;
};

struct BestDraft {
  std::optional<DraftRecord> record;  // nullopt when no draft could be simulated
  std::string strategy;               // "predictor" or "exhaustive"
  std::string reason;                 // why there is no record (first evaluation error, or none kept)
  std::string warning;                // a shipped model that could not be loaded, ...
};

/// Throws InputError only for a problem the explorer refuses outright; a backend that cannot run the kernel
/// gives an empty record with the reason.
BestDraft findBestDraft(const Problem& p, const BestDraftOptions& o = {});

/// Where a comparison is: the backend searched now (index among CompareOptions::backends) and its search.
struct CompareProgress {
  std::size_t backend = 0, backends = 0;
  std::string name;
  ExploreProgress search;
};

struct CompareOptions {
  std::vector<std::string> backends;  // 2..4 registry names, distinct
  std::string baseline = "gpu";       // "gpu" or one of `backends`
  BestDraftOptions search;            // its onProgress is replaced when onProgress is set
  /// Which tensors stay in the banks (`compare --resident/--streamed`, the window's panel); nullopt: what the
  /// kernel declares. Every backend and baseline of the comparison runs with it.
  std::optional<Residency> residency;
  /// What-if edits (`compare --set`): a backend here stands in for the registry's backend of the same name;
  /// `backends` still says which are compared.
  std::vector<Backend> edited;
  /// Called from the comparing thread as each backend's search progresses; optional.
  std::function<void(const CompareProgress&)> onProgress;
};

/// `k` as compare runs it on `b`: as given, unless `b`'s target refuses it and `b` does not list its element
/// type; then in the nearest type `b` lists (same kind, the narrowest at least as wide, else the widest), if
/// that runs. `retyped` says whether it was retyped.
Kernel compareKernel(const Backend& b, const Kernel& k, bool* retyped = nullptr);

struct BackendResult {
  std::string backend;
  std::string elementType;  // what the backend ran the kernel in ("f16"; "mixed" when tensors differ)
  bool retyped = false;     // the backend lacks the kernel's type and ran its nearest one
  bool available = false;
  std::string reason;    // why not available
  std::string strategy;  // how the draft was chosen
  std::optional<Draft> draft;
  std::string draftLabel;
  std::vector<std::string> partLabels;  // representative label per part
  Evaluation eval;                      // without per-bank statistics
  std::optional<double> speedup;        // baseline time / this time; nullopt when unavailable
};

struct Comparison {
  std::string kernel, shape;
  std::string resident;         // the resident tensors, "W,K" (empty: every tensor streamed)
  std::string baseline;         // "gpu" or a backend name
  std::string baselineSummary;  // what the baseline schedule is
  double baselineNs = 0;
  std::vector<BackendResult> results;  // available first, by speed-up against the baseline (best first)
  std::string verdict;  // "offload to X with schedule Y, N.NNx faster than Z" or "keep it on ..."
};

/// Throws InputError for fewer than 2 or more than 4 backends, a duplicate or unknown backend, a baseline
/// that is neither "gpu" nor one of the backends (or a baseline backend that cannot run the kernel), and a
/// shape that does not fit the kernel.
Comparison compareBackends(const Kernel& k, const std::string& dims, const CompareOptions& o);

/// Why `o.backends` is no comparison, or empty: 2 to 4 backends, or one against the GPU (GPU-only execution
/// is then the other contender: "attacc or stay on the GPU?"). The one place the rule is written: the CLI and
/// the compare view ask it.
std::string backendCountError(const CompareOptions& o);

}  // namespace pim
