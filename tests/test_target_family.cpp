// SPDX-License-Identifier: Apache-2.0
// A hardware family defined in the tests (tests/families/roofline_target.h) runs through every seam of the
// engine without code written for it: its own schema at load, its check, the explorer's strategies,
// analyseCandidate and compare; and its numbers are the hand-derived roofline.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "engine/common/error.h"
#include "engine/search/evaluate.h"
#include "engine/search/explorer.h"
#include "engine/target/registry.h"
#include "engine/workflow/compare.h"
#include "engine/workflow/training.h"
#include "tests/families/roofline_target.h"

namespace pim {
namespace {

std::shared_ptr<const Problem> rooflineMul() {
  const Backend& b = test::registerRooflineFamily();
  Kernel k = resolveKernel("mul", "");
  Shape s = parseShape(k, "b=1,n=4096");
  return std::make_shared<const Problem>(b, std::move(k), std::move(s));
}

TEST(TargetFamily, RooflineBackendIsValidatedAgainstItsFamilysSchema) {
  const Backend& b = test::registerRooflineFamily();
  EXPECT_EQ(&targetOf(b), TargetRegistry::builtin().find("roofline-test"));
  std::string text = b.toJson();
  const auto at = text.find("\"coreGBps\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"coreGBpz\"");
  try {
    parseBackend(text, "edited.json");
    FAIL() << "a roofline file without roofline.coreGBps was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("edited.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("coreGB"), std::string::npos) << e.what();
  }
}

// mul b=1,n=4096 (f16) over all 4 chips x 16 cores: each core holds 64 elements of x, y and z (384 bytes) and
// executes 64 operations, busy max(64 op / 2 GOP/s, 384 B / 4 GB/s) = 96 ns. The host moves 16,384 input
// bytes (163.84 ns at 100 GB/s, 164 cycles of 1 ns) and 8,192 output bytes (82 cycles). Energy: 4,096 ops
// x 1 pJ + 24,576 bytes x 10 pJ = 249,856 pJ.
TEST(TargetFamily, RooflineEvaluationIsTheHandDerivedRoofline) {
  const auto p = rooflineMul();
  const ITarget& target = targetOf(p->backend());
  ASSERT_EQ(target.geometry(p->backend()).units(), 64);
  int checked = 0;
  p->space().forEach([&](const Draft& d) {
    const Evaluation e = evaluateDraft(*p, d);
    if (e.unitsUsed != 64) return true;
    ++checked;
    EXPECT_EQ(e.provenance, Provenance::Analytic);
    EXPECT_EQ(e.cycles[0], 164);
    EXPECT_EQ(e.cycles[1], 96);
    EXPECT_EQ(e.cycles[2], 82);
    EXPECT_DOUBLE_EQ(e.timeNs, 342.0);
    EXPECT_DOUBLE_EQ(e.energyPj, 249856.0);
    // Compute is memory-bound: 32 ns of operations at 2 GOP/s, then 64 ns waiting for local memory.
    EXPECT_EQ(target.subPhases().size(), 2u);
    EXPECT_EQ(e.subCycles, (std::vector<std::int64_t>{32, 64}));
    EXPECT_EQ(e.unitStats.statCount, target.statistics().size());
    EXPECT_EQ(e.unitStats.units(), 64u);
    for (std::size_t u = 0; u < e.unitStats.units(); ++u) {
      EXPECT_DOUBLE_EQ(e.unitStats.at(u, 0), 384.0);
      EXPECT_DOUBLE_EQ(e.unitStats.at(u, 1), 64.0);
      EXPECT_DOUBLE_EQ(e.unitStats.at(u, 2), 96.0);
    }
    return true;
  });
  EXPECT_GT(checked, 0);
}

TEST(TargetFamily, ExplorerAnalysisAndCompareRunTheFamily) {
  const auto p = rooflineMul();
  ExploreOptions o;
  o.strategy = "exhaustive";
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  ex.run(never);
  const auto best = ex.best();
  ASSERT_TRUE(best && best->simulated);
  const CandidateAnalysis a = analyseCandidate(*p, best->draft);
  EXPECT_TRUE(a.error.empty()) << a.error;
  ASSERT_TRUE(a.evaluation.has_value());
  EXPECT_EQ(a.evaluation->timeNs, best->simulated->timeNs);
  EXPECT_EQ(a.listing.rfind("chip 0 core 0: load ", 0), 0u) << a.listing;
  EXPECT_FALSE(a.ir.empty());

  CompareOptions c;
  c.backends = {"hbm-pim", "roofline-test"};
  c.baseline = "hbm-pim";
  const Comparison cmp = compareBackends(resolveKernel("mul", ""), "b=1,n=4096", c);
  bool found = false;
  for (const BackendResult& r : cmp.results) {
    if (r.backend != "roofline-test") continue;
    found = true;
    EXPECT_TRUE(r.available) << r.reason;
    EXPECT_TRUE(r.draft.has_value());
  }
  EXPECT_TRUE(found);
}

// The family's own space (a rule "all-chips" after DCC's) is what every consumer walks: its counts add up,
// the explorer keeps exactly its candidates, and a candidate it rejects says why.
TEST(TargetFamily, TheFamilysCandidateSpaceIsWhatTheExplorerWalks) {
  const auto p = rooflineMul();
  const auto space = targetOf(p->backend()).candidates(*p);
  const PruneCounts c = space->counts();
  ASSERT_EQ(c.rules.size(), PruneRuleRegistry::builtin().size() + 1);
  EXPECT_EQ(c.rules.back().name, "all-chips");
  EXPECT_GT(c.rules.back().removed, 0u);
  std::uint64_t removed = 0;
  for (const RuleCount& r : c.rules) removed += r.removed;
  EXPECT_EQ(c.generated - removed, c.remaining);

  std::uint64_t kept = 0, rejected = 0;
  for (std::uint64_t id = 0; id < space->size(); ++id) {
    const Verdict v = space->why(id);
    kept += v.kept;
    if (v.ruleName == "all-chips") {
      ++rejected;
      EXPECT_NE(v.reason.find("fewer than all 4 chips"), std::string::npos) << v.reason;
    }
  }
  EXPECT_EQ(kept, c.remaining);
  EXPECT_EQ(rejected, c.rules.back().removed);

  ExploreOptions o;
  o.strategy = "exhaustive";
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  ex.run(never);
  EXPECT_EQ(ex.records().size(), c.remaining);
  for (const DraftRecord& r : ex.records()) EXPECT_TRUE(space->why(r.draft.id).kept) << r.draft.id;
  EXPECT_EQ(ex.progress().pruned.back(), c.rules.back());
}

TEST(TargetFamily, WithoutAnEstimateNothingScreensAndNoModelIsTrained) {
  const auto p = rooflineMul();
  EXPECT_EQ(targetOf(p->backend()).estimator(*p, {}), nullptr);
  std::vector<Draft> drafts;
  targetOf(p->backend()).candidates(*p)->forEachKept([&](const Draft& d) {
    drafts.push_back(d);
    return true;
  });
  std::vector<const Draft*> ptrs;
  for (const Draft& d : drafts) ptrs.push_back(&d);
  EXPECT_EQ(screenForPrediction(*p, ptrs, 2).size(), drafts.size());
  Suite s;
  s.name = "roofline";
  s.kernels = {{"mul", {"b=1,n=4096"}}};
  try {
    trainPredictor(p->backend(), s, {});
    FAIL() << "a model was trained for a family without features";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no analytic estimate"), std::string::npos) << e.what();
  }
  ExploreOptions o;
  o.strategy = "compute-centric";
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  EXPECT_THROW(ex.run(never), InputError);
}

TEST(TargetFamily, RefusalsComeFromTheFamilysCheck) {
  const Backend& b = test::registerRooflineFamily();
  Kernel k = resolveKernel("mul", "");
  k.tensors[0].dtype = DType::BF16;
  const std::string why = unsupportedReason(b, k);
  EXPECT_NE(why.find("tensor x: no"), std::string::npos) << why;
}

}  // namespace
}  // namespace pim
