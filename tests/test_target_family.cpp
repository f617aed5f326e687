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

TEST(TargetFamily, RefusalsComeFromTheFamilysCheck) {
  const Backend& b = test::registerRooflineFamily();
  Kernel k = resolveKernel("mul", "");
  k.tensors[0].dtype = DType::BF16;
  const std::string why = unsupportedReason(b, k);
  EXPECT_NE(why.find("tensor x: no"), std::string::npos) << why;
}

}  // namespace
}  // namespace pim
