// SPDX-License-Identifier: Apache-2.0
// Comparing backends: every listed backend is reported (with the reason when it cannot run the kernel),
// results are sorted by speed-up against the pinned baseline, and the verdict names the winner or keeps the
// baseline.
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
#include "engine/workflow/compare.h"

namespace pim {
namespace {

CompareOptions options(std::vector<std::string> backends, std::string baseline = "gpu") {
  CompareOptions o;
  o.backends = std::move(backends);
  o.baseline = std::move(baseline);
  o.search.maxSimulations = 60;  // hbm-pim and attacc have 80x64 resources: keep the sample small
  o.search.eval.keepUnitStats = false;
  return o;
}

void expectSortedBySpeedup(const Comparison& c) {
  bool unavailableSeen = false;
  for (std::size_t i = 0; i < c.results.size(); ++i) {
    const auto& r = c.results[i];
    if (!r.speedup) {
      unavailableSeen = true;
      continue;
    }
    EXPECT_FALSE(unavailableSeen) << r.backend << " listed after an unavailable backend";
    if (i > 0 && c.results[i - 1].speedup) {
      EXPECT_GE(*c.results[i - 1].speedup, *r.speedup);
    }
  }
}

TEST(Compare, RedOnThreeBackendsAgainstTheGpuGivesAVerdict) {
  const Kernel red = KernelLibrary::builtin().get("red");
  const Comparison c = compareBackends(red, "b=1,n=4096", options({"gddr6-aim", "hbm2-pim", "hbm-pim"}));
  EXPECT_EQ(c.kernel, "red");
  EXPECT_EQ(c.shape, "b=1,n=4096");
  EXPECT_EQ(c.baseline, "gpu");
  EXPECT_GT(c.baselineNs, 0);
  ASSERT_EQ(c.results.size(), 3u);
  for (const auto& r : c.results) {
    ASSERT_TRUE(r.available) << r.backend << ": " << r.reason;
    ASSERT_TRUE(r.draft && r.speedup);
    EXPECT_EQ(r.eval.cycles[0] + r.eval.cycles[1] + r.eval.cycles[2], r.eval.totalCycles) << r.backend;
    EXPECT_NEAR(*r.speedup, c.baselineNs / r.eval.timeNs, 1e-12);
    EXPECT_EQ(r.partLabels.size(), r.draft->parts.size());
  }
  expectSortedBySpeedup(c);
  const auto& top = c.results.front();
  if (*top.speedup > 1.0) {
    EXPECT_EQ(c.verdict.rfind(
                  "offload to " + top.backend + " with schedule draft " + std::to_string(top.draft->id), 0),
              0u)
        << c.verdict;
    EXPECT_NE(c.verdict.find("faster than the GPU"), std::string::npos) << c.verdict;
  } else {
    EXPECT_EQ(c.verdict.rfind("keep it on the GPU: ", 0), 0u) << c.verdict;
    EXPECT_NE(c.verdict.find(top.backend), std::string::npos) << c.verdict;
  }
}

TEST(Compare, ABackendBaselineHasSpeedupOneAndTheVerdictNamesIt) {
  const Kernel red = KernelLibrary::builtin().get("red");
  const Comparison c = compareBackends(red, "b=1,n=4096", options({"gddr6-aim", "hbm2-pim"}, "hbm2-pim"));
  expectSortedBySpeedup(c);
  for (const auto& r : c.results) {
    ASSERT_TRUE(r.speedup) << r.backend;
    if (r.backend == "hbm2-pim") {
      EXPECT_DOUBLE_EQ(*r.speedup, 1.0);
    }
  }
  const bool otherFaster = c.results.front().backend != "hbm2-pim" && *c.results.front().speedup > 1.0;
  if (otherFaster) {
    EXPECT_NE(c.verdict.find("faster than hbm2-pim"), std::string::npos) << c.verdict;
  } else {
    EXPECT_EQ(c.verdict.rfind("keep it on hbm2-pim", 0), 0u) << c.verdict;
  }
}

TEST(Compare, ABackendThatCannotRunTheKernelIsReportedWithTheReason) {
  const Kernel attn = KernelLibrary::builtin().get("attn");
  const Comparison c = compareBackends(attn, "b=1,h=2,l=64,d=32", options({"upmem", "attacc"}));
  ASSERT_EQ(c.results.size(), 2u);
  EXPECT_EQ(c.results[0].backend, "attacc");
  EXPECT_TRUE(c.results[0].available);
  EXPECT_EQ(c.results[1].backend, "upmem");
  EXPECT_FALSE(c.results[1].available);
  EXPECT_NE(c.results[1].reason.find("softmax"), std::string::npos) << c.results[1].reason;
  EXPECT_FALSE(c.results[1].speedup);
  EXPECT_FALSE(c.verdict.empty());
}

// UPMEM has no f16: an f16 kernel runs there in the nearest type it lists (f32), and the row says so; a
// backend that lists the type runs it as given.
TEST(Compare, ABackendWithoutTheKernelsTypeRunsTheNearestOne) {
  const Kernel red = KernelLibrary::builtin().get("red");
  const Comparison c = compareBackends(red, "b=1,n=4096", options({"upmem", "hbm2-pim"}));
  for (const BackendResult& r : c.results) {
    EXPECT_TRUE(r.available) << r.backend << ": " << r.reason;
    EXPECT_EQ(r.retyped, r.backend == "upmem");
    EXPECT_EQ(r.elementType, r.backend == "upmem" ? "f32" : "f16");
  }
  bool changed = true;
  const Kernel i64 = pim::retyped(red, DType::I64);
  EXPECT_EQ(compareKernel(pim::builtinBackends().get("upmem"), i64, &changed).tensors[0].dtype, DType::I64);
  EXPECT_FALSE(changed);
}

// "attacc or stay on the GPU?": one PIM backend against GPU-only execution is a comparison with a verdict.
TEST(Compare, OneBackendAgainstTheGpuIsAComparison) {
  const Kernel gemv = KernelLibrary::builtin().get("gemv");
  const Comparison c = compareBackends(gemv, "b=1,out=4096,in=4096", options({"attacc"}, "gpu"));
  ASSERT_EQ(c.results.size(), 1u);
  EXPECT_TRUE(c.results[0].available) << c.results[0].reason;
  ASSERT_TRUE(c.results[0].speedup.has_value());
  EXPECT_GT(c.baselineNs, 0);
  EXPECT_NEAR(*c.results[0].speedup, c.baselineNs / c.results[0].eval.timeNs, 1e-9 * *c.results[0].speedup);
  EXPECT_FALSE(c.verdict.empty());
}

// Compare used what the kernel declares whatever the user asked: a GEMV whose weights are streamed was
// compared as if they were resident.
TEST(Compare, EveryBackendRunsWithTheGivenResidency) {
  const Kernel gemv = KernelLibrary::builtin().get("gemv");
  CompareOptions streamed = options({"attacc"}, "gpu");
  streamed.residency = overrideResidency(gemv, Residency::declared(gemv), "", "W");
  const Comparison s = compareBackends(gemv, "b=1,out=1024,in=1024", streamed);
  const Comparison r = compareBackends(gemv, "b=1,out=1024,in=1024", options({"attacc"}, "gpu"));
  EXPECT_EQ(s.resident, "");
  EXPECT_EQ(r.resident, "W");
  ASSERT_TRUE(s.results[0].available && r.results[0].available);
  // Streamed, W crosses from the host layout on every call: the input copies take longer.
  EXPECT_GT(s.results[0].eval.cycles[0], r.results[0].eval.cycles[0]);
  EXPECT_GT(s.results[0].eval.timeNs, r.results[0].eval.timeNs);
}

TEST(Compare, BadInputIsRefusedClearly) {
  const Kernel red = KernelLibrary::builtin().get("red");
  auto refused = [&](const CompareOptions& o, const std::string& dims, const std::string& needle) {
    try {
      compareBackends(red, dims, o);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused(options({"gddr6-aim"}, "gddr6-aim"), "b=1,n=4096", "2 to 4");
  refused(options({"gddr6-aim", "hbm2-pim", "hbm-pim", "attacc", "upmem"}), "b=1,n=4096", "2 to 4");
  refused(options({"gddr6-aim", "gddr6-aim"}), "b=1,n=4096", "twice");
  refused(options({"gddr6-aim", "no-such-backend"}), "b=1,n=4096", "no-such-backend");
  refused(options({"gddr6-aim", "hbm2-pim"}, "attacc"), "b=1,n=4096", "--baseline");
  try {
    compareBackends(KernelLibrary::builtin().get("attn"), "b=1,h=2,l=64,d=32",
                    options({"attacc", "upmem"}, "upmem"));
    ADD_FAILURE() << "accepted a baseline that cannot run the kernel";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--baseline upmem"), std::string::npos) << e.what();
  }
  refused(options({"gddr6-aim", "hbm2-pim"}), "b=1,n=0", "n");
}

}  // namespace
}  // namespace pim
