// SPDX-License-Identifier: Apache-2.0
// PrIM's TS (library kernel `ts`): the `min=` and `argmin=` assignments it needs, their misuse, the reference
// run against TS written directly in C++, the DRAM-PIM families' refusal of argmin=, and UPMEM running it
// under PrIM's 256-B blocks.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/kernel/reference_run.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "tests/random_candidates.h"
#include "tests/test_util.h"

namespace {

using namespace pim;

std::string parseError(const std::string& statement) {
  try {
    parseKernel("kernel k(n = 8, m = 4)\n  input x: i32[n][m]\n  output y: i32[n]\n  output z: i32[1]\n  " +
                    statement + "\nend\n",
                "k.pim");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TsKernel, MinAndArgminParseAsTheirOwnAssignments) {
  const Kernel k = parseKernel(
      "kernel k(n = 8)\n  input x: i32[n]\n  output lo: i32[1]\n  output at: i32[1]\n"
      "  for i < n: lo[0] min= x[i]\n  for i < n: at[0] argmin= x[i]\nend\n",
      "k.pim");
  ASSERT_EQ(k.statements.size(), 2u);
  EXPECT_EQ(k.statements[0].op, AssignOp::Min);
  EXPECT_EQ(k.statements[1].op, AssignOp::ArgMin);
  EXPECT_EQ(k.requiredOps(), (std::vector<std::string>{"max", "argmin"}));
}

TEST(TsKernel, ArgminNeedsExactlyOneReducedLoop) {
  EXPECT_EQ(parseError("for i < n, j < m: z[0] argmin= x[i][j]"),
            "k.pim:5:34: argmin= stores the position along the one loop that does not index its target; this "
            "statement reduces over 'i', 'j'");
  EXPECT_EQ(parseError("for i < n: y[i] argmin= x[i][0]"),
            "k.pim:5:27: argmin= stores the position along the one loop that does not index its target; this "
            "statement reduces over none");
  EXPECT_EQ(parseError("for i < n: y[i] min = x[i][0]"),
            "k.pim:5:19: expected '=', '+=', 'max=', 'min=' or 'argmin=' after the target, found 'min'");
  EXPECT_EQ(parseError("for i < n, j < m: y[i] min= x[i][j]"), "");
}

// TS written directly: PrIM's distance of every window, its least and the first position of the least.
struct TsResult {
  double best = 0;
  double pos = -1;
};

TsResult directTs(const std::vector<double>& t, const std::vector<double>& q, const std::vector<double>& mu,
                  const std::vector<double>& sigma, const std::vector<double>& qs) {
  TsResult r;
  r.best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < mu.size(); ++i) {
    double dot = 0;
    for (std::size_t j = 0; j < q.size(); ++j) dot += t[i + j] * q[j];
    const double dist = 2 * (qs[0] - (dot - qs[1] * mu[i]) / (sigma[i] * qs[2]));
    if (dist < r.best) {
      r.best = dist;
      r.pos = static_cast<double>(i);
    }
  }
  return r;
}

TEST(TsKernel, ReferenceRunMatchesTsWrittenDirectly) {
  const Kernel k = KernelLibrary::builtin().get("ts");
  const std::size_t n = 40, m = 8;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> value(0, 126), spread(1, 9);
  std::vector<double> t(n + m - 1), q(m), mu(n), sigma(n);
  for (double& x : t) x = value(rng);
  for (double& x : q) x = value(rng);
  for (double& x : mu) x = value(rng);
  for (double& x : sigma) x = spread(rng);
  const std::vector<double> qs = {static_cast<double>(m), 8.0 * 63, 5};
  // Windows 3 and 30 are equal and least: the first wins, as PrIM's strict `<` keeps it.
  for (std::size_t j = 0; j < m; ++j) t[30 + j] = t[3 + j];
  mu[30] = mu[3] = 0;
  sigma[30] = sigma[3] = 1;
  const TsResult expected = directTs(t, q, mu, sigma, qs);
  ASSERT_EQ(expected.pos, 3);

  TensorValues values = {t, q, mu, sigma, qs, std::vector<double>(n), std::vector<double>(n), {0}, {0}};
  runReference(k, parseShape(k, "n=40,m=8"), values);
  EXPECT_EQ(values[7], std::vector<double>{expected.best});
  EXPECT_EQ(values[8], std::vector<double>{expected.pos});
}

TEST(TsKernel, DramPimFamiliesRefuseArgminByName) {
  for (const char* backend : {"hbm-pim", "hbm2-pim", "attacc", "gddr6-aim"}) {
    const Kernel k = retyped(KernelLibrary::builtin().get("ts"), DType::F16);
    const Problem p(builtinBackends().get(backend), k, parseShape(k, "n=64,m=8"));
    const auto why = targetOf(p.backend()).check(p);
    ASSERT_FALSE(why.empty()) << backend;
    EXPECT_NE(why.front().find("argmin"), std::string::npos) << why.front();
  }
}

// PrIM's TS on UPMEM: 256-B blocks, a result in every element type, every verified candidate of odd shapes.
TEST(TsKernel, UpmemRunsItsVendorScheduleAndEveryVerifiedCandidate) {
  const Kernel k = KernelLibrary::builtin().get("ts");
  const Problem p(builtinBackends().get("upmem"), k, parseShape(k, "n=65536,m=256"));
  const Baseline v = vendorBaseline(p);
  ASSERT_TRUE(v.available) << v.reason;
  EXPECT_GT(v.eval.totalCycles, 0);
  EXPECT_NE(v.summary.find("256"), std::string::npos) << v.summary;

  int evaluated = 0;
  for (const char* dims : {"n=1,m=1", "n=1000,m=7", "n=4099,m=256"})
    for (DType type : {DType::I32, DType::I64, DType::F32, DType::F64}) {
      const Kernel typed = retyped(k, type);
      const Problem odd(builtinBackends().get("upmem"), typed, parseShape(typed, dims));
      test::RandomCandidates candidates(odd, 11 + evaluated, 4096);
      for (int i = 0; i < 8; ++i) {
        const Draft d = candidates.next();
        if (!targetOf(odd.backend()).violations(odd, d).empty()) continue;
        SCOPED_TRACE(std::string(dims) + " " + std::string(dtypeName(type)) + " " + std::to_string(d.id));
        EXPECT_NO_THROW(EXPECT_GT(evaluateDraft(odd, d).totalCycles, 0));
        ++evaluated;
      }
    }
  EXPECT_GT(evaluated, 40);
}

}  // namespace
