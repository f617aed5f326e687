// SPDX-License-Identifier: Apache-2.0
// The GA's genome (../shared/specs/crossbar.md, "Weight replication", GA paragraph; tcad VI-A, Fig. 7(e)):
// PIMCOMP-NN's value-position chromosome, its legality rules, and the translation to and from the plan's
// (replicas per layer, core per AG) pair that assemblePlan (compile.h) takes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/crossbar/compile.h"

namespace pim::crossbar::ga {

/// What the GA replicates and places. A unit is one layer, or one AGP column part of a layer whose band is
/// wider than a core (partition.h): every AG of a unit has the same crossbar count, so a gene's crossbars are
/// count x crossbarsPerAg. Without AGP (every shipped network on the default accelerator) unit i is layer i.
struct GaUnit {
  int layer = 0;
  std::int64_t part = 0, agp = 1;
  std::int64_t agsPerReplica = 1;
  std::int64_t crossbarsPerAg = 1;
  std::int64_t cols = 0;     // the part's matrix columns: the elements a replica stores (HT ST)
  std::int64_t windows = 1;  // the layer's windows: the replica cap
  // Add/remove replica only touch CONV layers without AGP, as PIMCOMP-NN's (FC keeps one replica; the AGP
  // parts of a layer must keep equal replica counts, which single-unit mutations cannot guarantee).
  bool replicable = false;
};

/// The fixed facts of one GA run, derived once from the partitioned plan.
struct GaProblem {
  const CompilePlan* plan = nullptr;  // not owned; outlives the problem
  std::vector<GaUnit> units;
  std::vector<std::vector<int>> unitsOfLayer;  // layer -> its units (parts in order)
  int cores = 0;
  std::int64_t crossbarsPerCore = 0;
  int kindsPerCore = 32;  // PIMCOMP-NN's max_AG_kind_per_core: genes (distinct units) a core may hold
};

/// Builds the units of `plan.layers`. Throws InputError when a gene cannot encode a core's AG count (a core
/// with room for 10,000 or more AGs of one unit) or kindsPerCore < 1.
GaProblem makeProblem(const CompilePlan& plan, int kindsPerCore);

/// A gene: unit x 10000 + AG count (tcad VI-A); 0 is an empty slot. A count is >= 1, so unit 0's genes are
/// never 0.
inline constexpr std::int32_t kGeneBase = 10000;
inline std::int32_t makeGene(int unit, std::int64_t count) {
  return static_cast<std::int32_t>(unit * kGeneBase + count);
}
inline int geneUnit(std::int32_t gene) { return gene / kGeneBase; }
inline std::int64_t geneCount(std::int32_t gene) { return gene % kGeneBase; }

/// One individual. genes has kindsPerCore slots per core (slot s of core c at c * kindsPerCore + s). This
/// implementation keeps each core's genes packed at the front of its slots and holds at most one gene per
/// unit per core (PIMCOMP-NN lets duplicates appear and merges them before evaluation); `used`, `kinds` and
/// `replicas` are caches a legality check recomputes.
struct Chromosome {
  std::vector<std::int32_t> genes;
  std::vector<std::int64_t> replicas;  // per unit: replicas of the layer before the AGP split
  std::vector<std::int64_t> used;      // per core: crossbars
  std::vector<std::int32_t> kinds;     // per core: genes in use
  bool operator==(const Chromosome&) const = default;
};

Chromosome emptyChromosome(const GaProblem& p);
/// The slot of unit's gene on core, or -1.
int findSlot(const GaProblem& p, const Chromosome& c, int core, int unit);
/// Adds n AGs of unit to core (merging into its gene or taking the next free slot) and updates the caches;
/// false, unchanged, when the core needs a new slot and has none. Capacity is not checked here.
bool addAgs(const GaProblem& p, Chromosome& c, int core, int unit, std::int64_t n);
/// Removes n (<= the gene's count) AGs from the gene at `slot`; an emptied gene's slot is refilled with the
/// core's last gene so the slots stay packed.
void removeAgs(const GaProblem& p, Chromosome& c, int slot, std::int64_t n);

/// "" when legal, else why not: every core within its crossbars and kinds, every unit with
/// 1 <= replicas <= windows and exactly replicas x agsPerReplica AGs, the parts of a layer with equal
/// replicas, and the caches consistent.
std::string legalityError(const GaProblem& p, const Chromosome& c);

/// The plan's form: replicas per layer (times AGP, as CompilePlan::replicas) and a core per AG in
/// arrayGroups() order. A unit's AGs (by replica, then band) fill its genes in increasing core order, as
/// PIMCOMP-NN's PostProcess fills replicas along the chromosome.
struct Decoded {
  std::vector<std::int64_t> replicas;
  std::vector<std::int64_t> cores;
};
Decoded decode(const GaProblem& p, const Chromosome& c);
/// The inverse for any legal (replicas, cores) pair, e.g. a first-fit layout. Throws InputError when the
/// sizes disagree, a core is out of range, or a core would hold more than kindsPerCore units.
Chromosome encode(const GaProblem& p, const std::vector<std::int64_t>& replicas,
                  const std::vector<std::int64_t>& cores);

}  // namespace pim::crossbar::ga
