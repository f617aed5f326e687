// SPDX-License-Identifier: Apache-2.0
// Initial individuals and mutations of the GA (../shared/specs/crossbar.md, "Weight replication", GA
// paragraph; pimcomp-nn GeneticAlgorithm.cpp InitReplicating, InitMapping*, Mutation). The thresholds (a
// quarter and 1/24 of a core, 50 and 30 tries) are PIMCOMP-NN's.
#include "engine/crossbar/ga_operators.h"

#include <algorithm>
#include <queue>

namespace pim::crossbar::ga {
namespace {

std::int64_t room(const GaProblem& p, const Chromosome& c, int core) {
  return p.crossbarsPerCore - c.used[std::size_t(core)];
}

// Whether core can take AGs of unit without a gene slot it does not have.
bool hasSlotFor(const GaProblem& p, const Chromosome& c, int core, int unit) {
  return c.kinds[std::size_t(core)] < p.kindsPerCore || findSlot(p, c, core, unit) >= 0;
}

std::vector<int> replicableUnits(const GaProblem& p) {
  std::vector<int> r;
  for (std::size_t u = 0; u < p.units.size(); ++u)
    if (p.units[u].replicable) r.push_back(static_cast<int>(u));
  return r;
}

bool addReplica(const GaProblem& p, Chromosome& c, GaRng& rng) {
  const std::vector<int> units = replicableUnits(p);
  if (units.empty()) return false;
  const int u = units[rng.below(units.size())];
  const GaUnit& unit = p.units[std::size_t(u)];
  if (c.replicas[std::size_t(u)] >= unit.windows) return false;  // more would compute nothing
  const std::int64_t need = unit.agsPerReplica * unit.crossbarsPerAg;
  std::vector<int> candidates;
  for (int core = 0; core < p.cores; ++core)
    if (room(p, c, core) >= need && hasSlotFor(p, c, core, u)) candidates.push_back(core);
  if (candidates.empty()) return false;
  addAgs(p, c, candidates[rng.below(candidates.size())], u, unit.agsPerReplica);
  ++c.replicas[std::size_t(u)];
  return true;
}

bool removeReplica(const GaProblem& p, Chromosome& c, GaRng& rng) {
  const std::vector<int> units = replicableUnits(p);
  if (units.empty()) return false;
  const int u = units[rng.below(units.size())];
  if (c.replicas[std::size_t(u)] <= 1) return false;
  --c.replicas[std::size_t(u)];
  std::int64_t remaining = p.units[std::size_t(u)].agsPerReplica;
  const std::size_t size = c.genes.size(), start = rng.below(size);
  for (std::size_t i = 0; i < size && remaining > 0; ++i) {
    const std::size_t slot = (start + i) % size;
    if (c.genes[slot] == 0 || geneUnit(c.genes[slot]) != u) continue;
    const std::int64_t n = std::min(geneCount(c.genes[slot]), remaining);
    removeAgs(p, c, static_cast<int>(slot), n);  // a slot refilled by another unit's gene is skipped anyway
    remaining -= n;
  }
  return true;
}

// A random core other than `from` accepted by `ok`, in at most 30 draws (PIMCOMP-NN's limit), or -1.
template <class Ok>
int randomTarget(const GaProblem& p, int from, GaRng& rng, const Ok& ok) {
  for (int t = 0; t < 30; ++t) {
    const int core = static_cast<int>(rng.below(std::uint64_t(p.cores)));
    if (core != from && ok(core)) return core;
  }
  return -1;
}

bool split(const GaProblem& p, Chromosome& c, GaRng& rng) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int core = static_cast<int>(rng.below(std::uint64_t(p.cores)));
    for (int s = 0; s < c.kinds[std::size_t(core)]; ++s) {
      const int slot = core * p.kindsPerCore + s;
      const int u = geneUnit(c.genes[std::size_t(slot)]);
      const std::int64_t n = geneCount(c.genes[std::size_t(slot)]);
      const std::int64_t x = p.units[std::size_t(u)].crossbarsPerAg;
      if (n == 1 || n * x <= p.crossbarsPerCore / 4) continue;  // only large genes are worth splitting
      const std::int64_t move = 1 + std::int64_t(rng.below(std::uint64_t(n - 1)));
      const int target = randomTarget(
          p, core, rng, [&](int t) { return room(p, c, t) >= move * x && hasSlotFor(p, c, t, u); });
      if (target < 0) continue;
      removeAgs(p, c, slot, move);  // move < n: the gene stays
      addAgs(p, c, target, u, move);
      return true;
    }
  }
  return false;
}

bool gather(const GaProblem& p, Chromosome& c, GaRng& rng) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int core = static_cast<int>(rng.below(std::uint64_t(p.cores)));
    for (int s = 0; s < c.kinds[std::size_t(core)]; ++s) {
      const int slot = core * p.kindsPerCore + s;
      const int u = geneUnit(c.genes[std::size_t(slot)]);
      const std::int64_t n = geneCount(c.genes[std::size_t(slot)]);
      const std::int64_t x = p.units[std::size_t(u)].crossbarsPerAg;
      if (n > 2 || n * x >= p.crossbarsPerCore / 24) continue;  // only small scattered genes
      const int target = randomTarget(
          p, core, rng, [&](int t) { return room(p, c, t) >= n * x && findSlot(p, c, t, u) >= 0; });
      if (target < 0) continue;
      removeAgs(p, c, slot, n);
      addAgs(p, c, target, u, n);
      return true;
    }
  }
  return false;
}

// The AGs two genes trade: the gene with fewer crossbars gives as many AGs as the other's fill its space.
std::pair<std::int64_t, std::int64_t> exchangeCounts(std::int64_t n1, std::int64_t x1, std::int64_t n2,
                                                     std::int64_t x2) {
  if (n1 * x1 < n2 * x2) {
    const std::int64_t e2 = n1 * x1 / x2;
    return {e2 * x2 / x1, e2};
  }
  const std::int64_t e1 = n2 * x2 / x1;
  return {e1, e1 * x1 / x2};
}

// Kinds and crossbars of `core` after it gives e AGs of its gene at `slot` and takes `in` AGs of unit
// `inUnit`.
bool fitsAfterTrade(const GaProblem& p, const Chromosome& c, int slot, std::int64_t e, int inUnit,
                    std::int64_t in) {
  const int core = slot / p.kindsPerCore;
  const std::int32_t g = c.genes[std::size_t(slot)];
  const std::int64_t used = c.used[std::size_t(core)] - e * p.units[std::size_t(geneUnit(g))].crossbarsPerAg +
                            in * p.units[std::size_t(inUnit)].crossbarsPerAg;
  const int kinds =
      c.kinds[std::size_t(core)] - (e == geneCount(g) ? 1 : 0) + (findSlot(p, c, core, inUnit) < 0 ? 1 : 0);
  return used <= p.crossbarsPerCore && kinds <= p.kindsPerCore;
}

bool exchange(const GaProblem& p, Chromosome& c, GaRng& rng) {
  std::vector<int> filled;
  for (std::size_t s = 0; s < c.genes.size(); ++s)
    if (c.genes[s] != 0) filled.push_back(static_cast<int>(s));
  if (filled.size() < 2) return false;
  for (int attempt = 0; attempt < 30; ++attempt) {
    const int s1 = filled[rng.below(filled.size())], s2 = filled[rng.below(filled.size())];
    const int core1 = s1 / p.kindsPerCore, core2 = s2 / p.kindsPerCore;
    const int u1 = geneUnit(c.genes[std::size_t(s1)]), u2 = geneUnit(c.genes[std::size_t(s2)]);
    if (core1 == core2 || u1 == u2) continue;
    const auto [e1, e2] =
        exchangeCounts(geneCount(c.genes[std::size_t(s1)]), p.units[std::size_t(u1)].crossbarsPerAg,
                       geneCount(c.genes[std::size_t(s2)]), p.units[std::size_t(u2)].crossbarsPerAg);
    if (e1 == 0 || e2 == 0) continue;
    if (!fitsAfterTrade(p, c, s1, e1, u2, e2) || !fitsAfterTrade(p, c, s2, e2, u1, e1)) continue;
    removeAgs(p, c, s1, e1);  // different cores: neither removal moves the other's slot
    removeAgs(p, c, s2, e2);
    addAgs(p, c, core1, u2, e2);
    addAgs(p, c, core2, u1, e1);
    return true;
  }
  return false;
}

}  // namespace

std::uint64_t GaRng::below(std::uint64_t n) {
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n + 1) % n;  // largest multiple - 1
  std::uint64_t v = m_engine();
  while (v > limit) v = m_engine();
  return v % n;
}

bool mutate(const GaProblem& p, Chromosome& c, Mutation m, GaRng& rng) {
  switch (m) {
    case Mutation::AddReplica:
      return addReplica(p, c, rng);
    case Mutation::RemoveReplica:
      return removeReplica(p, c, rng);
    case Mutation::Split:
      return split(p, c, rng);
    case Mutation::Gather:
      return gather(p, c, rng);
    case Mutation::Exchange:
      return exchange(p, c, rng);
  }
  return false;
}

std::vector<std::int64_t> balanceReplicas(const GaProblem& p, double marginFactor) {
  struct Entry {  // PIMCOMP-NN's conv_node_info: ordered on the current windows per replica only
    int unit;
    std::int64_t windowsPerReplica;
    bool operator<(const Entry& o) const { return windowsPerReplica < o.windowsPerReplica; }
  };
  std::vector<std::int64_t> reps(p.units.size(), 1);
  std::priority_queue<Entry> heap;
  std::int64_t available = std::int64_t(p.cores) * p.crossbarsPerCore;
  for (std::size_t u = 0; u < p.units.size(); ++u) {
    const GaUnit& unit = p.units[u];
    if (unit.replicable)
      heap.push({static_cast<int>(u), unit.windows});
    else  // FC (and AGP parts) keep one replica; their crossbars are not available for replication
      available -= unit.agsPerReplica * unit.crossbarsPerAg;
  }
  const auto margin = static_cast<std::int64_t>(double(available) * marginFactor);
  while (!heap.empty()) {
    Entry e = heap.top();
    const GaUnit& unit = p.units[std::size_t(e.unit)];
    const std::int64_t need = unit.agsPerReplica * unit.crossbarsPerAg;
    if (available <= need || available <= margin) break;
    heap.pop();
    const std::int64_t n = ++reps[std::size_t(e.unit)];
    available -= need;
    e.windowsPerReplica = (unit.windows + n - 1) / n;
    if (n < unit.windows) heap.push(e);
  }
  return reps;
}

bool mapFirstFit(const GaProblem& p, Chromosome& c) {
  for (const std::vector<int>& parts : p.unitsOfLayer) {
    const GaUnit& first = p.units[std::size_t(parts[0])];
    for (std::int64_t rep = 0; rep < c.replicas[std::size_t(parts[0])] * first.agp; ++rep) {
      const int u = parts[std::size_t(rep % first.agp)];
      const std::int64_t x = p.units[std::size_t(u)].crossbarsPerAg;
      for (std::int64_t k = 0; k < first.agsPerReplica; ++k) {
        int core = 0;
        while (core < p.cores && (room(p, c, core) < x || !hasSlotFor(p, c, core, u))) ++core;
        if (core == p.cores) return false;
        addAgs(p, c, core, u, 1);
      }
    }
  }
  return true;
}

namespace {

// Places AGs of u one by one on the cores from `start` on, cyclically; false when some do not fit.
bool placeAgByAg(const GaProblem& p, Chromosome& c, int u, std::int64_t count, int start) {
  const std::int64_t x = p.units[std::size_t(u)].crossbarsPerAg;
  for (int j = 0; j < p.cores && count > 0; ++j) {
    const int core = (start + j) % p.cores;
    const std::int64_t fit = hasSlotFor(p, c, core, u) ? std::min(count, room(p, c, core) / x) : 0;
    if (fit > 0) addAgs(p, c, core, u, fit);
    count -= fit;
  }
  return count == 0;
}

}  // namespace

bool mapDistributed(const GaProblem& p, Chromosome& c, GaRng& rng) {
  std::int64_t placedReplicas = 0;  // PIMCOMP-NN's accumulated_replication_num: rotates the start core
  for (std::size_t u = 0; u < p.units.size(); ++u) {
    const GaUnit& unit = p.units[u];
    const std::int64_t need = unit.agsPerReplica * unit.crossbarsPerAg;
    const bool whole = rng.chance(0.5);
    for (std::int64_t i = 0; i < c.replicas[u]; ++i) {
      bool placed = false;
      if (whole) {
        const auto cluster = std::int64_t(1 + rng.below(31));
        const int start = static_cast<int>((i / cluster + placedReplicas) % p.cores);
        for (int j = 0; j < p.cores && !placed; ++j) {
          const int core = (start + j) % p.cores;
          if (room(p, c, core) >= need && hasSlotFor(p, c, core, static_cast<int>(u)))
            placed = addAgs(p, c, core, static_cast<int>(u), unit.agsPerReplica);
        }
      }
      if (!placed && !placeAgByAg(p, c, static_cast<int>(u), unit.agsPerReplica,
                                  static_cast<int>((i + placedReplicas) % p.cores)))
        return false;
    }
    placedReplicas += c.replicas[u];
  }
  return true;
}

std::optional<Chromosome> randomIndividual(const GaProblem& p, GaRng& rng) {
  // PIMCOMP-NN: float(rand() % 100) / 125 + 0.1, i.e. 0.1 to 0.892 in steps of 0.008.
  const double margin = double(rng.below(100)) / 125.0 + 0.1;
  Chromosome c = emptyChromosome(p);
  c.replicas = balanceReplicas(p, margin);
  const bool ok = rng.chance(0.5) ? mapDistributed(p, c, rng) : mapFirstFit(p, c);
  if (!ok || !legalityError(p, c).empty()) return std::nullopt;
  return c;
}

}  // namespace pim::crossbar::ga
