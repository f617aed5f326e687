// SPDX-License-Identifier: Apache-2.0
// The GA's chromosome: units, gene edits, legality and the plan translation (../shared/specs/crossbar.md,
// "Weight replication", GA paragraph; pimcomp-nn GeneticAlgorithm.cpp CheckLegality and PostProcess).
#include "engine/crossbar/ga_chromosome.h"

#include <algorithm>

#include "engine/common/error.h"

namespace pim::crossbar::ga {

GaProblem makeProblem(const CompilePlan& plan, int kindsPerCore) {
  const Accelerator& acc = plan.accelerator;
  if (kindsPerCore < 1) throw InputError("GA: AG kinds per core must be at least 1");
  GaProblem p;
  p.plan = &plan;
  p.cores = static_cast<int>(acc.cores());
  p.crossbarsPerCore = acc.crossbarsPerCore;
  p.kindsPerCore = kindsPerCore;
  p.unitsOfLayer.resize(plan.layers.size());
  const std::int64_t partCols = acc.crossbarsPerCore * acc.cols;  // as arrayGroups cuts AGP parts
  for (std::size_t li = 0; li < plan.layers.size(); ++li) {
    const LayerPartition& l = plan.layers[li];
    for (std::int64_t part = 0; part < l.agp; ++part) {
      GaUnit u;
      u.layer = static_cast<int>(li);
      u.part = part;
      u.agp = l.agp;
      u.agsPerReplica = l.agsPerReplica;
      u.cols = std::min(l.matrix.w, (part + 1) * partCols) - part * partCols;
      u.crossbarsPerAg = (u.cols + acc.cols - 1) / acc.cols;
      u.windows = l.windows;
      u.replicable = l.op == NetworkOp::Conv && l.agp == 1;
      // A gene holds at most kGeneBase - 1 AGs; a core never holds more AGs of a unit than fit in it.
      if (acc.crossbarsPerCore / u.crossbarsPerAg >= kGeneBase)
        throw InputError(plan.networkName + ": GA: layer '" + l.name + "': a core holds " +
                         std::to_string(acc.crossbarsPerCore / u.crossbarsPerAg) +
                         " of its AGs; a gene encodes at most 9,999");
      p.unitsOfLayer[li].push_back(static_cast<int>(p.units.size()));
      p.units.push_back(u);
    }
  }
  return p;
}

Chromosome emptyChromosome(const GaProblem& p) {
  Chromosome c;
  c.genes.assign(std::size_t(p.cores) * std::size_t(p.kindsPerCore), 0);
  c.replicas.assign(p.units.size(), 0);
  c.used.assign(std::size_t(p.cores), 0);
  c.kinds.assign(std::size_t(p.cores), 0);
  return c;
}

int findSlot(const GaProblem& p, const Chromosome& c, int core, int unit) {
  const int first = core * p.kindsPerCore;
  for (int s = first; s < first + c.kinds[std::size_t(core)]; ++s)
    if (geneUnit(c.genes[std::size_t(s)]) == unit) return s;
  return -1;
}

bool addAgs(const GaProblem& p, Chromosome& c, int core, int unit, std::int64_t n) {
  int slot = findSlot(p, c, core, unit);
  if (slot < 0) {
    if (c.kinds[std::size_t(core)] >= p.kindsPerCore) return false;
    slot = core * p.kindsPerCore + c.kinds[std::size_t(core)]++;
    c.genes[std::size_t(slot)] = makeGene(unit, 0);
  }
  c.genes[std::size_t(slot)] += static_cast<std::int32_t>(n);
  c.used[std::size_t(core)] += n * p.units[std::size_t(unit)].crossbarsPerAg;
  return true;
}

void removeAgs(const GaProblem& p, Chromosome& c, int slot, std::int64_t n) {
  const int core = slot / p.kindsPerCore;
  const int unit = geneUnit(c.genes[std::size_t(slot)]);
  c.used[std::size_t(core)] -= n * p.units[std::size_t(unit)].crossbarsPerAg;
  if (geneCount(c.genes[std::size_t(slot)]) > n) {
    c.genes[std::size_t(slot)] -= static_cast<std::int32_t>(n);
    return;
  }
  const int last = core * p.kindsPerCore + --c.kinds[std::size_t(core)];
  c.genes[std::size_t(slot)] = c.genes[std::size_t(last)];
  c.genes[std::size_t(last)] = 0;
}

namespace {

// The per-core part of legalityError; adds each gene's AGs to `ags`.
std::string coreError(const GaProblem& p, const Chromosome& c, int core, std::vector<std::int64_t>& ags) {
  const std::string where = "core " + std::to_string(core) + ": ";
  std::int64_t used = 0;
  int kinds = 0;
  std::vector<int> seen;
  for (int s = 0; s < p.kindsPerCore; ++s) {
    const std::int32_t g = c.genes[std::size_t(core * p.kindsPerCore + s)];
    if (g == 0) continue;
    if (s != kinds) return where + "genes not packed";
    const int unit = geneUnit(g);
    if (unit < 0 || unit >= static_cast<int>(p.units.size()) || geneCount(g) < 1)
      return where + "malformed gene " + std::to_string(g);
    if (std::find(seen.begin(), seen.end(), unit) != seen.end())
      return where + "two genes of unit " + std::to_string(unit);
    seen.push_back(unit);
    ++kinds;
    used += geneCount(g) * p.units[std::size_t(unit)].crossbarsPerAg;
    ags[std::size_t(unit)] += geneCount(g);
  }
  if (used > p.crossbarsPerCore)
    return where + std::to_string(used) + " crossbars of " + std::to_string(p.crossbarsPerCore);
  if (used != c.used[std::size_t(core)] || kinds != c.kinds[std::size_t(core)])
    return where + "cached crossbars or kinds disagree";
  return "";
}

}  // namespace

std::string legalityError(const GaProblem& p, const Chromosome& c) {
  if (c.genes.size() != std::size_t(p.cores) * std::size_t(p.kindsPerCore) ||
      c.replicas.size() != p.units.size() || c.used.size() != std::size_t(p.cores) ||
      c.kinds.size() != std::size_t(p.cores))
    return "chromosome sizes do not match the problem";
  std::vector<std::int64_t> ags(p.units.size(), 0);
  for (int core = 0; core < p.cores; ++core)
    if (std::string e = coreError(p, c, core, ags); !e.empty()) return e;
  for (std::size_t u = 0; u < p.units.size(); ++u) {
    const GaUnit& unit = p.units[u];
    const std::string where = "unit " + std::to_string(u) + ": ";
    if (c.replicas[u] < 1 || c.replicas[u] > unit.windows)
      return where + std::to_string(c.replicas[u]) + " replicas (1 to " + std::to_string(unit.windows) + ")";
    if (ags[u] != c.replicas[u] * unit.agsPerReplica)
      return where + std::to_string(ags[u]) + " AGs for " + std::to_string(c.replicas[u]) + " replicas of " +
             std::to_string(unit.agsPerReplica);
    if (unit.part > 0 && c.replicas[u] != c.replicas[u - 1]) return where + "AGP parts disagree";
  }
  return "";
}

Decoded decode(const GaProblem& p, const Chromosome& c) {
  // Per unit, its genes as (core, count) in increasing core order.
  std::vector<std::vector<std::pair<int, std::int64_t>>> genesOf(p.units.size());
  for (int core = 0; core < p.cores; ++core) {
    for (int s = 0; s < c.kinds[std::size_t(core)]; ++s) {
      const std::int32_t g = c.genes[std::size_t(core * p.kindsPerCore + s)];
      genesOf[std::size_t(geneUnit(g))].push_back({core, geneCount(g)});
    }
  }
  for (auto& list : genesOf) std::sort(list.begin(), list.end());
  Decoded d;
  std::vector<std::size_t> next(p.units.size(), 0);    // current gene of each unit
  std::vector<std::int64_t> taken(p.units.size(), 0);  // AGs taken from it
  for (std::size_t li = 0; li < p.unitsOfLayer.size(); ++li) {
    const std::vector<int>& parts = p.unitsOfLayer[li];
    const GaUnit& first = p.units[std::size_t(parts[0])];
    d.replicas.push_back(c.replicas[std::size_t(parts[0])] * first.agp);
    for (std::int64_t rep = 0; rep < d.replicas.back(); ++rep) {
      const auto u = std::size_t(parts[std::size_t(rep % first.agp)]);
      for (std::int64_t k = 0; k < first.agsPerReplica; ++k) {
        while (taken[u] == genesOf[u][next[u]].second) {
          ++next[u];
          taken[u] = 0;
        }
        d.cores.push_back(genesOf[u][next[u]].first);
        ++taken[u];
      }
    }
  }
  return d;
}

Chromosome encode(const GaProblem& p, const std::vector<std::int64_t>& replicas,
                  const std::vector<std::int64_t>& cores) {
  const std::string& net = p.plan->networkName;
  if (replicas.size() != p.unitsOfLayer.size())
    throw InputError(net + ": GA: " + std::to_string(replicas.size()) + " replica counts for " +
                     std::to_string(p.unitsOfLayer.size()) + " layers");
  Chromosome c = emptyChromosome(p);
  std::size_t ag = 0;
  for (std::size_t li = 0; li < replicas.size(); ++li) {
    const std::vector<int>& parts = p.unitsOfLayer[li];
    const GaUnit& first = p.units[std::size_t(parts[0])];
    for (int u : parts) c.replicas[std::size_t(u)] = replicas[li] / first.agp;
    for (std::int64_t rep = 0; rep < replicas[li]; ++rep) {
      const int u = parts[std::size_t(rep % first.agp)];
      for (std::int64_t k = 0; k < first.agsPerReplica; ++k, ++ag) {
        if (ag >= cores.size()) throw InputError(net + ": GA: fewer cores than AGs");
        const std::int64_t core = cores[ag];
        if (core < 0 || core >= p.cores)
          throw InputError(net + ": GA: AG " + std::to_string(ag) + " on core " + std::to_string(core));
        if (!addAgs(p, c, static_cast<int>(core), u, 1))
          throw InputError(net + ": GA: core " + std::to_string(core) + " would hold more than " +
                           std::to_string(p.kindsPerCore) + " AG kinds");
      }
    }
  }
  if (ag != cores.size()) throw InputError(net + ": GA: more cores than AGs");
  return c;
}

}  // namespace pim::crossbar::ga
