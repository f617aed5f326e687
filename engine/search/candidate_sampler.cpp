// SPDX-License-Identifier: Apache-2.0
#include "engine/search/candidate_sampler.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/common/error.h"

namespace pim {
namespace {

// Loop variables some statement reduces over.
std::set<int> reductionVars(const Kernel& k) {
  std::set<int> out;
  for (const Statement& s : k.statements)
    for (int l : s.reducedLoops()) out.insert(l);
  return out;
}

int uniform(std::mt19937_64& rng, int lo, int hi) {  // [lo, hi]
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// A value in [1, avail] other than `now` (now itself when it is the only one).
int otherIn(std::mt19937_64& rng, int avail, int now) {
  if (avail <= 1) return 1;
  const int v = uniform(rng, 1, avail - 1);
  return v >= now ? v + 1 : v;
}

float log2f1(double v) { return static_cast<float>(std::log2(std::max(1.0, v))); }

}  // namespace

CandidateSampler::CandidateSampler(const Problem& p, const ICandidateSpace& space, const CandidateIds& ids)
    : m_problem(p), m_space(space), m_ids(ids) {
  space.forEachKept([&](const Draft& d) {
    m_kept.push_back(d.id);
    return true;
  });
  std::sort(m_kept.begin(), m_kept.end());
  const std::set<int> reduced = reductionVars(p.kernel());
  for (const DimensionSet& s : p.space().sets().sets)
    m_reducingPart.push_back(
        std::any_of(s.vars.begin(), s.vars.end(), [&](int v) { return reduced.count(v) > 0; }));
}

std::uint64_t CandidateSampler::random(std::mt19937_64& rng) const {
  if (m_kept.empty()) throw InputError(m_problem.title() + ": no kept draft to sample");
  const auto draft = m_kept[std::uniform_int_distribution<std::size_t>(0, m_kept.size() - 1)(rng)];
  std::vector<int> choice;
  for (const ChoiceAxis& a : m_ids.axes())
    choice.push_back(uniform(rng, 0, static_cast<int>(a.values.size()) - 1));
  return m_ids.id(draft, choice);
}

std::optional<std::uint64_t> CandidateSampler::mutate(std::uint64_t id, std::mt19937_64& rng) const {
  const DraftSpace& ds = m_problem.space();
  std::vector<PartChoice> parts = ds.draft(m_ids.draftOf(id)).parts;
  std::vector<int> choice = m_ids.choiceOf(id);
  const int nParts = ds.partCount();
  const int genes = 3 * nParts + static_cast<int>(choice.size());
  const int gene = uniform(rng, 0, genes - 1);
  if (gene < 3 * nParts) {
    const int s = gene / 3;
    // What part s has available, given the parts before it.
    int g = ds.resources().groups, c = ds.resources().coresPerGroup;
    for (int i = 0; i < s; ++i) {
      g /= parts[static_cast<std::size_t>(i)].groups;
      c /= parts[static_cast<std::size_t>(i)].cores;
    }
    PartChoice& p = parts[static_cast<std::size_t>(s)];
    const int candidates = static_cast<int>(ds.sets().sets[static_cast<std::size_t>(s)].candidates.size());
    if (gene % 3 == 0) p.groups = otherIn(rng, g, p.groups);
    if (gene % 3 == 1) p.cores = otherIn(rng, c, p.cores);
    if (gene % 3 == 2 && candidates > 1) p.rep = (p.rep + uniform(rng, 1, candidates - 1)) % candidates;
    // This part and the later ones keep what still fits.
    for (int i = s; i < nParts; ++i) {
      PartChoice& q = parts[static_cast<std::size_t>(i)];
      q.groups = std::min(q.groups, g);
      q.cores = std::min(q.cores, c);
      g /= q.groups;
      c /= q.cores;
    }
  } else {
    const auto a = static_cast<std::size_t>(gene - 3 * nParts);
    const int n = static_cast<int>(m_ids.axes()[a].values.size());
    if (n > 1) choice[a] = (choice[a] + uniform(rng, 1, n - 1)) % n;
  }
  const std::uint64_t next = m_ids.id(ds.idOf(parts), choice);
  const Verdict v = m_space.why(next);
  if (v.kept) return next;
  return v.keptTwin;
}

bool CandidateSampler::splitsReduction(std::uint64_t id) const {
  const std::vector<PartChoice> parts = m_problem.space().draft(m_ids.draftOf(id)).parts;
  for (std::size_t s = 0; s < parts.size(); ++s)
    if (m_reducingPart[s] && parts[s].groups * parts[s].cores > 1) return true;
  return false;
}

std::size_t CandidateSampler::featureCount() const {
  return 4 * static_cast<std::size_t>(m_problem.space().partCount()) + 2 + m_ids.axes().size();
}

std::vector<float> CandidateSampler::features(std::uint64_t id) const {
  const DraftSpace& ds = m_problem.space();
  const Draft d = ds.draft(m_ids.draftOf(id));
  std::vector<float> f;
  f.reserve(featureCount());
  double units = 1;
  for (int s = 0; s < ds.partCount(); ++s) {
    const PartChoice& p = d.parts[static_cast<std::size_t>(s)];
    f.push_back(log2f1(p.groups));
    f.push_back(log2f1(p.cores));
    f.push_back(log2f1(static_cast<double>(ds.perCoreSize(s, p))));
    f.push_back(static_cast<float>(p.rep));
    units *= p.groups * p.cores;
  }
  f.push_back(log2f1(units));
  const std::vector<int> c = m_ids.choiceOf(id);
  for (std::size_t a = 0; a < c.size(); ++a)
    f.push_back(static_cast<float>(m_ids.axes()[a].values[static_cast<std::size_t>(c[a])]));
  f.push_back(splitsReduction(id) ? 1.0f : 0.0f);
  return f;
}

}  // namespace pim
