// SPDX-License-Identifier: Apache-2.0
// DCC 4.4: predict every kept draft, then confirm the best predictions by simulation; when the model is
// unsure of this problem (out of its training distribution, or off by more than kConfirmMoreErrorPct on the
// confirmations), confirm as many again before naming a best.
//
// A family with kernel-level choices (UPMEM's tasklets, tiles, ...): the kept drafts are listed and predicted
// at the backend's own choices; the kChoiceDrafts best of them are then predicted at every other
// combination the verifier accepts (the model reads the choices through the analytic estimate's features),
// and where one of these beats every draft, all predicted drafts are predicted again at its choices; the best
// predictions of each group are confirmed too, as many as of the drafts.
//
// A family whose analytic estimate ranks as its simulator does (ITarget::estimateRanksUnseenKernels: upmem)
// also has the estimate's kEstimateDrafts best screened drafts confirmed in the first round, so that a model
// off near the optimum cannot lose what the estimate ranks first (the GPT-J-shaped GEMV on upmem: the
// model's pick 4.051 ms, one of the estimate's drafts 3.751 ms; docs/simulator.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <stdexcept>
#include <unordered_set>

#include "engine/predict/model_fit.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

constexpr std::size_t kChoiceDrafts = 4;
constexpr std::size_t kEstimateDrafts = 8;

/// Candidates the predictor strategy ranks beside the records, predicted: variants of records at other
/// combinations of choices.
struct ChoiceVariants {
  std::vector<Draft> drafts;
  std::vector<double> ns;
};

bool ranksChoices(const Problem& p) { return targetOf(p.backend()).candidateIds(p).choices() > 1; }

/// Of the candidates `ids`, predicted, the `most` best-predicted that the verifier accepts, best first (all
/// of them when `most` is 0). The verifier runs in the order of the predictions: it costs more than a
/// prediction, and only the best are ever confirmed.
ChoiceVariants predictedCandidates(const StrategyContext& c, const std::vector<std::uint64_t>& ids,
                                   std::size_t most = 0) {
  const ITarget& target = targetOf(c.problem.backend());
  const auto space =
      target.candidates(c.problem, c.options.rules,
                        c.options.pruneRules ? *c.options.pruneRules : PruneRuleRegistry::builtin());
  std::vector<Draft> drafts;
  drafts.reserve(ids.size());
  for (std::uint64_t id : ids) drafts.push_back(space->candidate(id));
  ChoiceVariants out;
  if (drafts.empty()) return out;
  const std::vector<double> ns = c.predictor->predictNs(c.problem, drafts);
  for (std::size_t i : bestPredicted(ns, drafts.size())) {
    if (most && out.drafts.size() >= most) break;
    if (!target.violations(c.problem, drafts[i]).empty()) continue;
    out.drafts.push_back(std::move(drafts[i]));
    out.ns.push_back(ns[i]);
  }
  return out;
}

/// The kChoiceDrafts best-predicted records at every other combination of choices (the `most` best of them).
ChoiceVariants choiceVariants(const StrategyContext& c, std::span<const double> recordNs, std::size_t most) {
  if (!ranksChoices(c.problem)) return {};
  const CandidateIds ids = targetOf(c.problem.backend()).candidateIds(c.problem);
  std::vector<std::uint64_t> wanted;
  for (std::size_t i : bestPredicted(recordNs, kChoiceDrafts)) {
    const std::uint64_t draft = c.records[i].draft.id;
    if (draft >= ids.drafts()) continue;  // already a candidate with choices
    for (std::uint64_t choice = 1; choice < ids.choices(); ++choice)
      wanted.push_back(draft + ids.drafts() * choice);
  }
  return predictedCandidates(c, wanted, most);
}

/// Every predicted record at the combination of choices of the best-predicted variant, when that variant is
/// predicted faster than every record: the best drafts at those choices need not be the best at the
/// backend's own (BS at PrIM's size: the pick is 1.77x faster than PrIM without this group, 2.73x with it).
/// The variants already ranked are left out.
ChoiceVariants redrafted(const StrategyContext& c, std::span<const double> recordNs, const ChoiceVariants& v,
                         std::size_t most) {
  if (v.ns.empty()) return {};
  const auto best = static_cast<std::size_t>(std::min_element(v.ns.begin(), v.ns.end()) - v.ns.begin());
  if (v.ns[best] >= *std::min_element(recordNs.begin(), recordNs.end())) return {};
  const CandidateIds ids = targetOf(c.problem.backend()).candidateIds(c.problem);
  const std::uint64_t choice = v.drafts[best].id / ids.drafts();
  std::unordered_set<std::uint64_t> ranked;
  for (const Draft& d : v.drafts) ranked.insert(d.id);
  std::vector<std::uint64_t> wanted;
  for (std::size_t i = 0; i < recordNs.size(); ++i) {
    const std::uint64_t draft = c.records[i].draft.id;
    if (!std::isfinite(recordNs[i]) || draft >= ids.drafts()) continue;
    if (!ranked.count(draft + ids.drafts() * choice)) wanted.push_back(draft + ids.drafts() * choice);
  }
  return predictedCandidates(c, wanted, most);
}

/// The kEstimateDrafts screened records (those with a prediction) the family's estimate ranks first, when the
/// family says its estimate ranks as its simulator does; none otherwise.
std::vector<std::size_t> estimateBest(const StrategyContext& c, std::span<const double> recordNs) {
  const ITarget& target = targetOf(c.problem.backend());
  if (!target.estimateRanksUnseenKernels()) return {};
  const auto estimator = target.estimator(c.problem, c.options.eval.optimizer);
  if (!estimator) return {};
  std::vector<double> estimated(recordNs.size(), INFINITY);
  for (std::size_t i = 0; i < recordNs.size(); ++i)
    if (std::isfinite(recordNs[i])) estimated[i] = estimator->estimate(c.records[i].draft).totalNs;
  return bestPredicted(estimated, kEstimateDrafts);
}

// The k best predicted, best first, plus near-ties of the best within the model's expected error; then, if
// unsure, the next best predictions up to twice as many confirmations in all.
class PredictorStrategy final : public ISearchStrategy {
 public:
  explicit PredictorStrategy(const StrategyContext& c)
      : m_bounded(c.options.boundConfirmations), m_ns(c.records.size(), INFINITY) {
    // PredictionUse::Required: the explorer runs the fallback instead when there is no model.
    if (!c.predictor) throw std::logic_error("predictor strategy built without a model");
    for (std::size_t i = 0; i < c.records.size(); ++i) {
      if (c.records[i].predictedNs) m_ns[i] = *c.records[i].predictedNs;
    }
    const std::size_t topK = static_cast<std::size_t>(std::max(1, c.options.topK));
    const double band = c.options.bandErrors * c.predictor->expectedErrorPct();
    const std::size_t most = static_cast<std::size_t>(std::max(0, c.options.maxConfirm));
    m_groups.push_back({0, m_ns.size()});
    // Variant v is candidate records.size() + v. Its best predictions are confirmed beside the drafts', not
    // instead of them, so the pick is never worse than at the backend's own choices.
    // A group's best 2 x most at most are ever confirmed (most, then as many again when unsure).
    const std::size_t keep = most ? 2 * std::max(topK, most) : 0;
    const ChoiceVariants variants = choiceVariants(c, m_ns, keep);
    const ChoiceVariants again = redrafted(c, std::span<const double>(m_ns), variants, keep);
    for (const ChoiceVariants* g : {&variants, &again}) {
      if (g->drafts.empty()) continue;
      m_groups.push_back({m_ns.size(), m_ns.size() + g->ns.size()});
      m_variants.insert(m_variants.end(), g->drafts.begin(), g->drafts.end());
      m_ns.insert(m_ns.end(), g->ns.begin(), g->ns.end());
    }
    for (Group& g : m_groups) {
      for (std::size_t i : bestPredicted(g.ns(m_ns), topK, band, most)) m_order.push_back(g.begin + i);
      g.first = m_order.size() - m_first;
      m_first = m_order.size();
    }
    const std::unordered_set<std::size_t> planned(m_order.begin(), m_order.end());
    for (std::size_t i : estimateBest(c, std::span<const double>(m_ns).first(c.records.size())))
      if (!planned.count(i)) {
        m_order.push_back(i);
        m_estimatePicks.insert(i);
      }
    m_first = m_order.size();
    m_outOfDistribution = modelFit(c.problem, c.predictor->metadata()).outOfDistribution();
  }
  std::optional<Proposal> next() override {
    if (m_at >= m_order.size() && !m_decided && m_reported == m_first) extendIfUnsure();
    if (m_at >= m_order.size()) return std::nullopt;
    Proposal p;
    // The first confirmations run to the end even when bounded: whether to confirm more is decided on the
    // error they measure, and a stopped run measures nothing (so bounding them could change the decision).
    p.bounded = m_bounded && m_at >= m_first;
    const std::size_t candidate = m_order[m_at++];
    if (candidate < m_groups.front().end) {
      p.index = candidate;
    } else {
      p.draft = m_variants[candidate - m_groups.front().end];
      p.predictedNs = m_ns[candidate];
      m_variantOf[p.draft->id] = candidate;
    }
    return p;
  }
  void report(const Proposal& p, const DraftRecord& r) override {
    ++m_reported;
    const std::size_t candidate = p.draft ? m_variantOf.at(p.draft->id) : p.index;
    if (r.simulated && !r.simulated->lowerBound) m_simulatedNs[candidate] = r.simulated->timeNs;
  }
  std::size_t planned() const override { return m_order.size(); }
  // Whether to confirm more is decided on every first confirmation, so it does not depend on thread timing.
  bool awaitingReports() const override { return !m_decided && m_reported < m_first; }

 private:
  // Decided on the drafts' confirmations alone, as without choices; each group then confirms as many again.
  void extendIfUnsure() {
    m_decided = true;
    MeasuredError error;  // in record order, so the decision does not depend on completion order
    for (const auto& [index, ns] : m_simulatedNs)  // the model's own picks: the estimate's are not its choice
      if (index < m_groups.front().end && !m_estimatePicks.count(index)) error.add(m_ns[index], ns);
    if (!m_outOfDistribution && error.mapePct() <= kConfirmMoreErrorPct) return;
    const std::unordered_set<std::size_t> done(m_order.begin(), m_order.end());
    for (const Group& g : m_groups) {
      std::size_t added = 0;
      for (std::size_t i : bestPredicted(g.ns(m_ns), 2 * g.first)) {
        if (added >= g.first) break;
        if (!done.count(g.begin + i)) {
          m_order.push_back(g.begin + i);
          ++added;
        }
      }
    }
  }

  /// Candidates ranked among themselves: the records, then the variants (ChoiceVariants).
  struct Group {
    std::size_t begin, end;
    std::size_t first = 0;  // confirmations planned before any was measured
    std::span<const double> ns(const std::vector<double>& all) const {
      return std::span<const double>(all).subspan(begin, end - begin);
    }
  };

  bool m_bounded;
  std::vector<double> m_ns;  // predicted ns per candidate: the records, then m_variants (inf: not predicted)
  std::vector<Group> m_groups;
  std::vector<Draft> m_variants;                     // ChoiceVariants
  std::map<std::uint64_t, std::size_t> m_variantOf;  // proposed variant's id -> candidate
  std::vector<std::size_t> m_order;
  std::size_t m_first = 0;  // confirmations planned before any was measured
  std::size_t m_at = 0, m_reported = 0;
  bool m_outOfDistribution = false, m_decided = false;
  std::map<std::size_t, double> m_simulatedNs;      // confirmed candidate -> simulated ns
  std::unordered_set<std::size_t> m_estimatePicks;  // records confirmed for the estimate (estimateBest)
};

}  // namespace

StrategyInfo predictorStrategy() {
  return {
      "predictor",
      "rank the kept drafts (with kernel-level choices, also the best drafts' other choices, and the drafts "
      "again at the best of these) with the "
      "trained model and simulate the best predictions (DCC), and where the family's estimate ranks as its "
      "simulator does (upmem) the estimate's 8 best too; twice as many predictions when the model is "
      "unsure of the problem (out of its training data, or off by more than 5%)",
      PredictionUse::Required,
      "exhaustive",
      [](const StrategyContext& c) { return std::make_unique<PredictorStrategy>(c); },
      [](const Problem& p, std::uint64_t kept, const ExploreOptions& o) {
        // The k best predictions and the near-ties, up to maxConfirm in all; twice that when unsure; as
        // many again of the variants and of the drafts at the best variant's choices; and the estimate's
        // best where it ranks as the simulator does.
        const auto most = 2 * static_cast<std::uint64_t>(std::max({1, o.topK, o.maxConfirm}));
        const bool estimate = targetOf(p.backend()).estimateRanksUnseenKernels();
        return static_cast<std::size_t>(std::min(kept, most) * (ranksChoices(p) ? 3 : 1) +
                                        (estimate ? std::min<std::uint64_t>(kept, kEstimateDrafts) : 0));
      }};
}

}  // namespace pim
