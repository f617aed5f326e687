// SPDX-License-Identifier: Apache-2.0
// IMTP's search (seed 004, section 5.2.3) on TVM MetaSchedule's evolutionary search: batches of candidates
// of the joint space (drafts and the target's kernel-level choices), each batch chosen by a cost model
// (XGBoost, retrained on every candidate measured so far) over a population evolved by mutation, plus an
// epsilon share of random candidates. IMTP's two changes: balanced sampling (the model's picks split evenly
// between candidates that split a reduction over units, rfactor, and those that do not) and an adaptive
// epsilon (0.5 falling linearly to 0.05), both over the first 40% of the trials. The target's verifier
// refuses candidates before any is proposed; the refusals are counted by limit.
//
// Deterministic: a batch is planned only once every report of the previous one is in, from the results in
// proposal order, with one random engine seeded by the user; XGBoost's hist trees are deterministic on one
// thread.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "engine/predict/xgb_model.h"
#include "engine/search/candidate_sampler.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

constexpr double kEarlyShare = 0.4;  // IMTP: balanced sampling and the falling epsilon, first 40%
constexpr double kEpsilonStart = 0.5, kEpsilonEnd = 0.05;
constexpr double kInitMeasuredRatio =
    0.2;  // MetaSchedule: share of the population seeded by the best measured

class ImtpStrategy final : public ISearchStrategy {
 public:
  explicit ImtpStrategy(const StrategyContext& c)
      : m_problem(c.problem),
        m_target(targetOf(c.problem.backend())),
        m_o(c.options.sampling),
        m_space(
            m_target.candidates(c.problem, c.options.rules,
                                c.options.pruneRules ? *c.options.pruneRules : PruneRuleRegistry::builtin())),
        m_ids(m_target.candidateIds(c.problem)),
        m_sampler(c.problem, *m_space, m_ids),
        m_rng(m_o.seed),
        m_trials(static_cast<std::size_t>(std::min<std::uint64_t>(m_o.trials, m_sampler.size()))) {}

  std::optional<Proposal> next() override {
    if (m_queue.empty() && m_inFlight == 0 && m_proposed < m_trials) planBatch();
    if (m_queue.empty()) return std::nullopt;
    Proposal p;
    p.draft = m_space->candidate(m_queue.front());
    m_queue.erase(m_queue.begin());
    ++m_proposed;
    ++m_inFlight;
    return p;
  }
  void report(const Proposal& p, const DraftRecord& r) override {
    --m_inFlight;
    const std::uint64_t id = p.draft->id;
    m_measured[id] = r.simulated && !r.simulated->lowerBound ? r.simulated->timeNs : INFINITY;
  }
  std::size_t planned() const override { return m_trials; }
  bool awaitingReports() const override { return m_inFlight > 0 && m_proposed < m_trials; }
  std::map<std::string, std::uint64_t> refusals() const override { return m_refused; }

 private:
  struct Scored {
    double predicted;
    std::uint64_t id;
    bool operator<(const Scored& o) const {
      return predicted != o.predicted ? predicted < o.predicted : id < o.id;
    }
  };

  bool taken(std::uint64_t id) const { return m_measured.count(id) || m_chosen.count(id); }

  /// Whether the verifier lets `id` run; counts its refusals by limit.
  bool verified(std::uint64_t id) {
    const auto v = m_target.violations(m_problem, m_space->candidate(id));
    for (const LimitViolation& x : v) ++m_refused[x.limit];
    if (!v.empty()) m_refusedIds.insert(id);
    return v.empty();
  }

  /// Adds `id` to the batch when it is new and verified.
  bool choose(std::uint64_t id) {
    if (taken(id) || m_refusedIds.count(id) || !verified(id)) return false;
    m_chosen.insert(id);
    m_queue.push_back(id);
    return true;
  }

  void planBatch() {
    const std::size_t want = std::min(m_o.batch ? m_o.batch : 1, m_trials - m_proposed);
    const double progress =
        static_cast<double>(m_proposed) / static_cast<double>(std::max<std::size_t>(1, m_trials));
    const bool early = progress < kEarlyShare;
    const double eps = m_o.adaptiveEpsilon && early
                           ? kEpsilonStart - (kEpsilonStart - kEpsilonEnd) * progress / kEarlyShare
                           : kEpsilonEnd;
    std::size_t exploit = 0;
    if (trainModel()) exploit = want - static_cast<std::size_t>(std::lround(eps * static_cast<double>(want)));
    if (exploit > 0) pickByModel(exploit, m_o.balanced && early);
    pickRandom(want);
  }

  /// Retrains the cost model on every candidate measured so far, in proposal order; false when fewer than
  /// two ran.
  bool trainModel() {
    std::vector<float> x, y;
    std::size_t rows = 0;
    for (std::uint64_t id : m_order)
      if (const double ns = m_measured.at(id); std::isfinite(ns) && ns > 0) {
        const auto f = m_sampler.features(id);
        x.insert(x.end(), f.begin(), f.end());
        y.push_back(static_cast<float>(std::log(ns)));
        ++rows;
      }
    if (rows < 2) return false;
    XgbParams params;
    params.learningRate = 0.3;
    params.maxDepth = 6;
    params.maxRounds = 60;
    params.earlyStoppingRounds = 0;
    params.threads = 1;
    params.seed = m_o.seed;
    m_model.emplace(XgbModel::train(x, rows, m_sampler.featureCount(), y, {}, 0, {}, params));
    return true;
  }

  std::vector<float> predict(const std::vector<std::uint64_t>& ids) const {
    std::vector<float> x;
    x.reserve(ids.size() * m_sampler.featureCount());
    for (std::uint64_t id : ids) {
      const auto f = m_sampler.features(id);
      x.insert(x.end(), f.begin(), f.end());
    }
    return m_model->predict(x, ids.size(), m_sampler.featureCount());
  }

  /// MetaSchedule's evolution: a population seeded by the best measured and random candidates, then
  /// generations of parents drawn by predicted speed and mutated; every candidate it scores, best first.
  std::vector<Scored> evolve() {
    std::vector<std::uint64_t> pop;
    std::vector<std::pair<double, std::uint64_t>> best;
    for (const auto& [id, ns] : m_measured)
      if (std::isfinite(ns)) best.emplace_back(ns, id);
    std::sort(best.begin(), best.end());
    const auto seeded = std::min(
        best.size(), static_cast<std::size_t>(kInitMeasuredRatio * static_cast<double>(m_o.population)));
    for (std::size_t i = 0; i < seeded; ++i) pop.push_back(best[i].second);
    while (pop.size() < m_o.population) pop.push_back(m_sampler.random(m_rng));
    std::map<std::uint64_t, double> scored;
    for (int g = 0; g <= m_o.generations; ++g) {
      const std::vector<float> pred = predict(pop);
      std::vector<double> fitness(pop.size());
      const float fastest = *std::min_element(pred.begin(), pred.end());
      for (std::size_t i = 0; i < pop.size(); ++i) {
        scored.emplace(pop[i], pred[i]);
        fitness[i] = std::exp(static_cast<double>(fastest - pred[i]));  // predicted speed, relative
      }
      if (g == m_o.generations) break;
      std::discrete_distribution<std::size_t> parent(fitness.begin(), fitness.end());
      std::bernoulli_distribution mutates(m_o.mutation);
      std::vector<std::uint64_t> children;
      children.reserve(pop.size());
      for (std::size_t i = 0; i < pop.size(); ++i) {
        const std::uint64_t p = pop[parent(m_rng)];
        std::optional<std::uint64_t> child;
        if (mutates(m_rng)) child = m_sampler.mutate(p, m_rng);
        children.push_back(child.value_or(p));
      }
      pop = std::move(children);
    }
    std::vector<Scored> out;
    for (const auto& [id, pred] : scored)
      if (!taken(id)) out.push_back({pred, id});
    std::sort(out.begin(), out.end());
    return out;
  }

  /// The model's `n` best new candidates; balanced: as many that split a reduction (rfactor) as not,
  /// while both kinds last.
  void pickByModel(std::size_t n, bool balanced) {
    const std::vector<Scored> ranked = evolve();
    const std::size_t goal = m_queue.size() + n;
    if (!balanced) {
      for (const Scored& s : ranked)
        if (m_queue.size() < goal) choose(s.id);
      return;
    }
    std::vector<std::uint64_t> kinds[2];
    for (const Scored& s : ranked) kinds[m_sampler.splitsReduction(s.id) ? 1 : 0].push_back(s.id);
    std::size_t at[2] = {0, 0};
    for (int turn = 0; m_queue.size() < goal && (at[0] < kinds[0].size() || at[1] < kinds[1].size());
         turn ^= 1) {
      const int k = at[turn] < kinds[turn].size() ? turn : 1 - turn;
      choose(kinds[k][at[k]++]);
    }
  }

  /// Random new candidates until the batch holds `want`; gives up after many repeats (a small space
  /// nearly used up).
  void pickRandom(std::size_t want) {
    for (std::size_t tries = 0; m_queue.size() < want && tries < 64 * want + 1024; ++tries)
      choose(m_sampler.random(m_rng));
    if (m_queue.empty()) m_trials = m_proposed;  // nothing left to propose
    for (std::uint64_t id : m_queue) m_order.push_back(id);
  }

  const Problem& m_problem;
  const ITarget& m_target;
  const SamplingOptions m_o;
  const std::unique_ptr<ICandidateSpace> m_space;
  const CandidateIds m_ids;
  const CandidateSampler m_sampler;
  std::mt19937_64 m_rng;
  std::size_t m_trials;
  std::size_t m_proposed = 0, m_inFlight = 0;
  std::vector<std::uint64_t> m_queue;  // chosen for this batch, not yet proposed
  std::vector<std::uint64_t> m_order;  // every chosen candidate, in proposal order
  std::set<std::uint64_t> m_chosen, m_refusedIds;
  std::map<std::uint64_t, double> m_measured;  // ns, or infinity when it could not run
  std::map<std::string, std::uint64_t> m_refused;
  std::optional<XgbModel> m_model;
};

}  // namespace

StrategyInfo imtpStrategy() {
  StrategyInfo s{"imtp",
                 "IMTP's evolutionary search over drafts and kernel-level choices with an XGBoost cost model "
                 "retrained as it goes (--trials, --seed)",
                 PredictionUse::None,
                 "",
                 [](const StrategyContext& c) { return std::make_unique<ImtpStrategy>(c); },
                 [](const Problem&, std::uint64_t, const ExploreOptions& o) { return o.sampling.trials; }};
  s.listsKept = false;
  return s;
}

}  // namespace pim
