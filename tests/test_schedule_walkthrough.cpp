// SPDX-License-Identifier: Apache-2.0
// DCC section 4.2 walkthrough as executable checks, on the shipped example kernel with 2 groups x up to 4
// cores per group, A0 = C0 = 12, B1 = C1 = 16 and a 16-way SIMD backend.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/codegen/ir_text.h"
#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/kernel/dsl.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/prune/pruner.h"
#include "engine/schedule/draft_space.h"

namespace pim {
namespace {

class DccWalkthrough : public ::testing::Test {
 protected:
  DccWalkthrough()
      : kernel(loadKernelFile(dataDir() + "/kernels/dcc_example.pim")),
        shape(parseShape(kernel, "n=12,m=3,p=16")),
        space(kernel, buildDimensionSets(kernel, shape), Resources{2, 4, 16}) {}

  // Candidate index of "A0^b"-style label in set `s`.
  int rep(int s, const std::string& label) const {
    const auto& c = space.sets().sets[s].candidates;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (mappingLabel(kernel, c[i]) == label) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no candidate " << label;
    return 0;
  }
  std::uint64_t id(std::vector<PartChoice> parts) const { return space.idOf(parts); }

  Kernel kernel;
  Shape shape;
  DraftSpace space;
};

TEST_F(DccWalkthrough, BuildsTheThreeDimensionSetsWithTheirReferenceSets) {
  const auto& sets = space.sets().sets;
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(dimensionSetLabel(kernel, sets[0]), "(A0={b,b+1}, C0={b})");
  EXPECT_EQ(dimensionSetLabel(kernel, sets[1]), "(A1={i,i*2}, B0={i})");
  EXPECT_EQ(dimensionSetLabel(kernel, sets[2]), "(B1={k}, C1={k})");
  EXPECT_EQ(sets[0].dims[0].extent, 12);  // A0
  EXPECT_EQ(sets[0].dims[1].extent, 12);  // C0
  EXPECT_EQ(sets[2].dims[0].extent, 16);  // B1
  EXPECT_EQ(space.sets().simdSet, 2);     // SIMD runs along k
  // Representative candidates: A0^b, A0^b+1, C0^b | A1^i, A1^i*2, B0^i | B1^k, C1^k.
  EXPECT_EQ(sets[0].candidates.size(), 3u);
  EXPECT_EQ(sets[1].candidates.size(), 3u);
  EXPECT_EQ(sets[2].candidates.size(), 2u);
  EXPECT_EQ(space.repCombinations(), 18u);
}

TEST_F(DccWalkthrough, Drafts5And6AreRedundantUnderRule1) {
  const auto d5 = id({{2, 4, rep(0, "C0^b")}, {1, 1, rep(1, "A1^i")}, {1, 1, rep(2, "B1^k")}});
  const auto d6 = id({{2, 4, rep(0, "A0^b")}, {1, 1, rep(1, "A1^i")}, {1, 1, rep(2, "B1^k")}});
  Pruner pruner(space);
  const Verdict v = pruner.why(d5);
  EXPECT_FALSE(v.kept);
  EXPECT_EQ(v.rule, 1);
  ASSERT_TRUE(v.twin.has_value());
  EXPECT_EQ(*v.twin, d6);  // as in the paper, the 5th draft goes and the 6th stays for rule 1
}

TEST_F(DccWalkthrough, FourCoresOnTheB1C1SetAreRemovedByRule2) {
  const auto d = id({{1, 1, rep(0, "A0^b")}, {1, 1, rep(1, "A1^i")}, {1, 4, rep(2, "B1^k")}});
  Pruner pruner(space);
  const Verdict v = pruner.why(d);
  EXPECT_FALSE(v.kept);
  EXPECT_EQ(v.rule, 2);
  EXPECT_NE(v.reason.find("4 elements"), std::string::npos) << v.reason;
}

TEST_F(DccWalkthrough, Drafts4And6AreEquivalentUnderRule3) {
  const auto d4 = id({{2, 3, rep(0, "A0^b")}, {1, 1, rep(1, "A1^i")}, {1, 1, rep(2, "B1^k")}});
  const auto d6 = id({{2, 4, rep(0, "A0^b")}, {1, 1, rep(1, "A1^i")}, {1, 1, rep(2, "B1^k")}});
  // round(12 / (2*3)) = round(12 / (2*4)) = 2
  EXPECT_EQ(space.perCoreSize(0, {2, 3, rep(0, "A0^b")}), 2);
  EXPECT_EQ(space.perCoreSize(0, {2, 4, rep(0, "A0^b")}), 2);
  Pruner pruner(space);
  EXPECT_TRUE(pruner.why(d4).kept);
  const Verdict v = pruner.why(d6);
  EXPECT_FALSE(v.kept);
  EXPECT_EQ(v.rule, 3);
  EXPECT_EQ(v.twin, d4);
  EXPECT_EQ(v.keptTwin, d4);
}

TEST_F(DccWalkthrough, Draft7TilesAndBothIndexingStrategies) {
  const Draft d7 =
      space.draft(id({{1, 4, rep(0, "C0^b")}, {2, 1, rep(1, "A1^i*2")}, {1, 1, rep(2, "B1^k")}}));
  const int b = kernel.loopIndex("b"), i = kernel.loopIndex("i");
  // Reference A[b+1][i*2] is the third reference in statement order: C[b][k], A[b][i], B[i][k], A[b+1][i*2].
  const auto refs = kernel.references();
  int a2 = -1;
  for (std::size_t r = 0; r < refs.size(); ++r) {
    if (kernel.tensors[refs[r].second.tensor].name == "A" &&
        refs[r].second.index[1].str(kernel.loopVarNames()) == "i*2") {
      a2 = static_cast<int>(r);
    }
  }
  ASSERT_GE(a2, 0);

  const TileMapping expand = mapDraft(space, d7, IndexingStrategy::Expand);
  const CoreTile& k0 = expand.at(0, 0);
  EXPECT_EQ(k0.dataTiles[0], IndexSet::range(0, 3));    // C0 in [0, 3)
  EXPECT_EQ(k0.computeTile[b], IndexSet::range(0, 3));  // b in [0, 3)
  EXPECT_EQ(k0.computeTile[i], IndexSet::range(0, 2));  // i*2 in [0, 3)  =>  i in {0, 1}
  EXPECT_EQ(k0.references[a2][1].str(), "[0:3)");       // (i) {0,2} expanded to [0:3)

  const TileMapping exact = mapDraft(space, d7, IndexingStrategy::Exact);
  const auto& a1 = exact.at(0, 0).references[a2][1];
  EXPECT_EQ(a1.start, 0);
  EXPECT_EQ(a1.stride, 2);
  EXPECT_EQ(a1.count, 2);  // (ii) kept as [0] and [2]
  EXPECT_EQ(unite({a1}).str(), "[0] [2]");
}

// Independent, literal implementation of the three rules over the enumerated space: each draft in id order is
// judged against all earlier survivors. The structural pruner must agree draft by draft.
TEST_F(DccWalkthrough, StructuralPrunerAgreesWithBruteForceOverTheWholeSpace) {
  Pruner pruner(space);
  const PruneCounts counts = pruner.counts();
  std::set<std::vector<std::int64_t>> rule1Seen, rule3Seen;
  std::uint64_t generated = 0, removed[3] = {0, 0, 0};
  std::set<std::uint64_t> keptBrute;
  space.forEach([&](const Draft& d) {
    ++generated;
    std::vector<std::int64_t> k1, k3;
    bool aligned = true;
    for (int p = 0; p < space.partCount(); ++p) {
      const auto& c = d.parts[p];
      k1.insert(k1.end(), {c.groups, c.cores, space.representative(p, c).equivalenceClass});
      k3.insert(k3.end(), {c.groups, space.perCoreSize(p, c)});
      if (p == space.sets().simdSet && space.perCoreSize(p, c) % 16 != 0) aligned = false;
    }
    int rule = 0;
    if (!rule1Seen.insert(k1).second) {
      rule = 1;
    } else if (!aligned) {
      rule = 2;
    } else if (!rule3Seen.insert(k3).second) {
      rule = 3;
    }
    if (rule) {
      ++removed[rule - 1];
    } else {
      keptBrute.insert(d.id);
    }
    EXPECT_EQ(pruner.why(d.id).rule, rule) << space.label(d);
    return true;
  });
  EXPECT_EQ(counts.generated, generated);
  EXPECT_EQ(counts.generated, space.size());
  for (int r = 0; r < 3; ++r) EXPECT_EQ(counts.rules[r].removed, removed[r]) << "rule " << r + 1;
  std::set<std::uint64_t> keptStreamed;
  pruner.forEachKept([&](const Draft& d) {
    keptStreamed.insert(d.id);
    return true;
  });
  EXPECT_EQ(keptStreamed, keptBrute);
  EXPECT_EQ(counts.remaining, keptBrute.size());
}

TEST_F(DccWalkthrough, DraftIdsRoundTrip) {
  std::uint64_t n = 0;
  space.forEach([&](const Draft& d) {
    EXPECT_EQ(d.id, n++);
    EXPECT_EQ(space.draft(d.id), d);
    EXPECT_EQ(space.idOf(d.parts), d.id);
    return true;
  });
  EXPECT_THROW(space.draft(space.size()), InputError);
}

TEST_F(DccWalkthrough, IrTextHasEveryTable2Construct) {
  const Draft d7 =
      space.draft(id({{1, 4, rep(0, "C0^b")}, {2, 1, rep(1, "A1^i*2")}, {1, 1, rep(2, "B1^k")}}));
  const std::string ir = irText(space, mapDraft(space, d7, IndexingStrategy::Exact));
  for (const char* construct :
       {"@hardware_platform[2, 4]", "func @dcc_example(", "complex_dimset %ds0", "[representative]",
        "%ds0.range = (0, 11, 1)", "data_tile %dt0: (1, 4) -> (1, 4, 3)", "compute_tile %ct0",
        "tensor_tile %tt_A", "rearrange %A", "[to_PIM_core]", "parallel_PIM (2, 4)",
        "loop (b, i, k) in (%ct0, %ct1, %ct2)", "[to_host]"}) {
    EXPECT_NE(ir.find(construct), std::string::npos) << construct << "\n" << ir;
  }
}

}  // namespace
}  // namespace pim
