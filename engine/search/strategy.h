// SPDX-License-Identifier: Apache-2.0
// Search strategies, ask/tell (Timeloop's mapper: Next proposes, Report receives the cost): the explorer
// builds one strategy per run from the registry by name, asks it what to evaluate next and reports every
// evaluation back. A strategy never simulates itself and never sees threads: the explorer's workers call
// next() and report() one at a time.
//
// Adding a strategy: one file in engine/search/strategies/ defining `StrategyInfo <name>Strategy()`, and its
// declaration and `add` line in engine/search/strategies/builtin_strategies.cpp. The CLI's --strategy, its
// help and error text, session files and the window's strategy box all read the registry.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/search/explorer.h"

namespace pim {

/// Id of a record whose schedule is not a draft of the space (the HBM2-PIM library's command programs, the
/// GPU model).
inline constexpr std::uint64_t kNoDraft = UINT64_MAX;

/// One evaluation a strategy asks for.
struct Proposal {
  /// A record of the explorer: a kept draft (records given at construction) or, in report(), the record the
  /// explorer appended for `draft` or `evaluate`.
  std::size_t index = 0;
  /// A candidate the strategy built itself (not among the kept drafts, e.g. a neighbour of a good draft or a
  /// pruned one); the explorer appends a record for it and evaluates it as it does a kept draft.
  std::optional<Draft> draft;
  /// The model's prediction for `draft`, kept in its record (and its confirmation then measures the model).
  std::optional<double> predictedNs;
  /// A schedule that is not a draft to simulate evaluates itself and returns its whole record (draft id
  /// kNoDraft when it has none); the explorer appends that record. This is the strategy's own code: an
  /// exception from it ends the exploration and Explorer::run rethrows it, whereas a draft that cannot be
  /// evaluated only gets an error in its record.
  std::function<DraftRecord()> evaluate;
  bool computeOnly = false;  // simulate the compute phase only (record.computeOnlyCycles)
  /// Stop the simulation once it is slower than the best bounded evaluation so far (branch and bound; such a
  /// record holds a lower bound, Evaluation::lowerBound, and cannot become the best).
  bool bounded = false;
};

/// What a strategy is given at construction. Everything is valid for the constructor only: the explorer
/// appends to `records` later, so a strategy copies what it needs.
struct StrategyContext {
  const Problem& problem;
  /// The kept drafts in id order, with predictions (predictedNs) when a model ran.
  const std::vector<DraftRecord>& records;
  const ExploreOptions& options;
  /// The model that predicted `records` (nullptr without one); its expected error sizes near-tie bands.
  const Predictor* predictor = nullptr;
};

class ISearchStrategy {
 public:
  virtual ~ISearchStrategy() = default;
  /// The next evaluation, or nullopt when it has nothing (more) to propose.
  virtual std::optional<Proposal> next() = 0;
  /// The outcome of a proposal it made (`p.index` names its record); `r` holds the simulation, the
  /// compute-only cycles or the error. Reports arrive in completion order, which depends on thread timing:
  /// a strategy whose proposals depend on them must not depend on that order (see awaitingReports).
  virtual void report(const Proposal& p, const DraftRecord& r) = 0;
  /// How many evaluations it expects to ask for (progress, and no more workers than this are started).
  virtual std::size_t planned() const = 0;
  /// After next() returned nothing: whether it may propose more once the evaluations in flight are reported
  /// (a worker then waits instead of leaving).
  virtual bool awaitingReports() const { return false; }
  /// Candidates it dropped because the target's verifier refused them, by limit (ITarget::violations).
  virtual std::map<std::string, std::uint64_t> refusals() const { return {}; }
};

/// What a strategy does with the model's predictions.
enum class PredictionUse : std::uint8_t {
  None,      // never reads them: the explorer neither screens nor predicts (vendor, gpu)
  Shown,     // does not rank by them, but they are made when a model is at hand, for the views
  Required,  // ranks by them: without a model the explorer runs StrategyInfo::fallback instead
};

struct StrategyInfo {
  std::string name;         // --strategy, session files, the window's strategy box
  std::string description;  // one line, for help texts and tooltips
  PredictionUse predictions = PredictionUse::Shown;
  std::string fallback;  // Required: the strategy run when no model is available
  std::function<std::unique_ptr<ISearchStrategy>(const StrategyContext&)> make;
  /// At most how many evaluations it will ask for among `kept` candidates under `o`, known before any is
  /// generated (the window's up-front time estimate, estimateRun); empty: all `kept`.
  std::function<std::size_t(const Problem& p, std::uint64_t kept, const ExploreOptions& o)> plan;
  /// False for a strategy that samples the space itself (imtp): the explorer counts the candidates but
  /// does not list the kept ones, and the records are the strategy's proposals in the order it made them.
  bool listsKept = true;
};

class StrategyRegistry {
 public:
  /// The built-in strategies (registerBuiltinStrategies), built once.
  static const StrategyRegistry& builtin();
  /// Appends a strategy; throws InputError when the name is taken.
  void add(StrategyInfo s);
  const std::vector<StrategyInfo>& all() const { return m_strategies; }
  const StrategyInfo* find(std::string_view name) const;
  /// Throws InputError "unknown strategy 'x' (known: a, b, ...)".
  const StrategyInfo& get(std::string_view name) const;
  /// The names, in registration order, between `sep`s with `lastSep` before the last: ", " and " or ".
  std::string names(std::string_view sep, std::string_view lastSep) const;

 private:
  std::vector<StrategyInfo> m_strategies;
};

/// Registers the built-in strategies in the order help texts and the window list them. The one place a
/// strategy is registered.
void registerBuiltinStrategies(StrategyRegistry& r);

}  // namespace pim
