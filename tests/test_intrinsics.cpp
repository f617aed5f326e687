// SPDX-License-Identifier: Apache-2.0
// PrIM's data-dependent kernels (engine/kernel/intrinsics.h): the DSL forms and their misuse, the reference
// run against the kernels written directly in C++ (PrIM's SEL, UNI, HST, SCAN, BS), the DRAM-PIM families'
// refusal, the DPU engine's handshake chain, and the UPMEM programs' structure (serial reads of kept
// values, SCAN-SSA's offsets and second kernel, the private histograms in WRAM).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include "engine/codegen/upmem_codegen.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/intrinsics.h"
#include "engine/kernel/library.h"
#include "engine/kernel/reference_run.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "engine/target/upmem/upmem_params.h"
#include "sim/dpu/dpu_engine.h"
#include "tests/random_candidates.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using sim::dpu::HostStep;
using sim::dpu::Step;

std::string parseError(const std::string& statement, const std::string& decls) {
  try {
    parseKernel("kernel k(n = 8, m = 4)\n" + decls + "  " + statement + "\nend\n", "k.pim");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Intrinsics, MisuseIsRefusedWithThePlaceAndTheForm) {
  const std::string io = "  input x: i64[n]\n  output y: i64[n]\n  output h: i32[m]\n";
  EXPECT_EQ(parseError("for i < n: y[i] += select(x[i], i)", io),
            "k.pim:5:22: select assigns its result with '=', not an accumulation");
  EXPECT_EQ(parseError("for i < n: y[i] = prefix(x[i], i) + x[i]", io),
            "k.pim:5:21: a data-dependent intrinsic (select, unique, prefix, hist, search) must be the whole "
            "value of its statement");
  EXPECT_EQ(parseError("for k < m: h[k] += hist(x[k], k, 4096)", io),
            "k.pim:5:22: hist needs a loop over the values it counts (one the target lacks)");
  EXPECT_EQ(parseError("for i < n, k < m: h[k] += hist(x[i], k, 0)", io),
            "k.pim:5:43: hist(value, bin loop, value range): the value range must be a positive integer, "
            "found '0'");
  EXPECT_EQ(parseError("for i < n: y[i] = unique(x[i])", io),
            "k.pim:5:32: unique(value, loop) takes more arguments, found ')'");
  EXPECT_EQ(parseError("for i < n: y[i] max= search(x[i], x[i], i)", io),
            "k.pim:5:24: search runs along 'i', which must not index the target");
}

// The values of the kernel's output after a reference run.
std::vector<double> run(const std::string& name, const std::string& dims, TensorValues values) {
  const Kernel k = KernelLibrary::builtin().get(name);
  runReference(k, parseShape(k, dims), values);
  return values[static_cast<std::size_t>(k.statements.back().target.tensor)];
}

std::vector<double> randomValues(std::size_t n, int below, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, below - 1);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(Intrinsics, SelectAndUniqueKeepWhatPrimKeeps) {
  const std::vector<double> x = randomValues(100, 7, 1);
  std::vector<double> odd, uni;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (static_cast<long>(x[i]) % 2 == 1) odd.push_back(x[i]);
    if (i == 0 || x[i] != x[i - 1]) uni.push_back(x[i]);
  }
  odd.resize(x.size(), 0);
  uni.resize(x.size(), 0);
  EXPECT_EQ(run("sel", "n=100", {x, std::vector<double>(100)}), odd);
  EXPECT_EQ(run("uni", "n=100", {x, std::vector<double>(100)}), uni);
}

TEST(Intrinsics, HistogramScanAndSearchMatchTheirDirectForm) {
  const std::vector<double> pixels = randomValues(500, 4096, 2);
  std::vector<double> h(16, 0);
  for (double p : pixels) h[static_cast<std::size_t>(p * 16 / 4096)] += 1;
  EXPECT_EQ(run("hst", "n=500,bins=16", {pixels, std::vector<double>(16)}), h);

  const std::vector<double> x = randomValues(64, 100, 3);
  std::vector<double> sums(64);
  std::partial_sum(x.begin(), x.end(), sums.begin());
  EXPECT_EQ(run("scan", "n=64", {x, std::vector<double>(64)}), sums);

  std::vector<double> a(50);
  for (std::size_t j = 0; j < a.size(); ++j) a[j] = 3.0 * static_cast<double>(j);  // sorted, multiples of 3
  const std::vector<double> keys = {0, 3, 147, 4, 75, 150};
  const std::vector<double> expected = {0, 1, 49, -1, 25, -1};
  EXPECT_EQ(run("bs", "q=6,n=50", {a, keys, std::vector<double>(6)}), expected);
}

TEST(Intrinsics, DramPimFamiliesRefuseThemByName) {
  for (const char* backend : {"hbm-pim", "hbm2-pim", "attacc", "gddr6-aim"}) {
    const Kernel k = retyped(KernelLibrary::builtin().get("scan"), DType::F16);
    const Problem p(builtinBackends().get(backend), k, parseShape(k, "n=64"));
    const auto why = targetOf(p.backend()).check(p);
    ASSERT_FALSE(why.empty()) << backend;
    EXPECT_NE(why.front().find("'prefix' (inclusive prefix sum along the loop) depends on the data"),
              std::string::npos)
        << why.front();
  }
}

// Tasklet 0 issues 100 instructions before its handshake; 1 and 2 reach theirs at once but pass only after
// their predecessor: alone in the pipeline, tasklet 0 issues every 11 cycles.
TEST(Intrinsics, AHandshakeChainPassesInTaskletOrder) {
  sim::dpu::DpuConfig cfg;
  sim::dpu::DpuKernel k;
  k.tasklets = {{Step::issue(100), Step::handshake()},
                {Step::handshake(), Step::issue(1)},
                {Step::handshake(), Step::issue(1)}};
  const sim::dpu::DpuRun r = sim::dpu::simulateDpu(cfg, k);
  EXPECT_GE(r.taskletEnd[1], 99 * 11);
  EXPECT_GT(r.taskletEnd[2], r.taskletEnd[1]);
  // Without the chain, tasklets 1 and 2 end within the first rounds.
  k.tasklets[1] = k.tasklets[2] = {Step::issue(1)};
  EXPECT_LT(sim::dpu::simulateDpu(cfg, k).taskletEnd[1], 40);
}

// Two tasklets lock one mutex around 20 instructions: the second enters only after the first unlocks, so
// the two critical sections run one after the other (each instruction 11 cycles after the last of its
// tasklet), where without the mutex they interleave.
TEST(Intrinsics, AMutexSerialisesItsCriticalSections) {
  sim::dpu::DpuConfig cfg;
  sim::dpu::DpuKernel k;
  const sim::dpu::TaskletProgram locked = {Step::lock(0), Step::issue(20), Step::unlock(0)};
  k.tasklets = {locked, locked};
  const sim::dpu::DpuRun r = sim::dpu::simulateDpu(cfg, k);
  EXPECT_GE(r.taskletEnd[1] - r.taskletEnd[0], 20 * 11);
  k.tasklets = {{Step::issue(22)}, {Step::issue(22)}};
  const sim::dpu::DpuRun free = sim::dpu::simulateDpu(cfg, k);
  EXPECT_LT(free.taskletEnd[1] - free.taskletEnd[0], 11);
  EXPECT_EQ(r.instructions, free.instructions);  // lock and unlock issue one instruction each
}

std::unique_ptr<Problem> upmemProblem(const std::string& kernel, const std::string& dims) {
  const Kernel k = KernelLibrary::builtin().get(kernel);
  return std::make_unique<Problem>(builtinBackends().get("upmem"), k, parseShape(k, dims));
}

Draft onDpus(const Problem& p, int dpus) {
  std::vector<PartChoice> parts(static_cast<std::size_t>(p.space().partCount()));
  parts[0].cores = dpus;
  return p.space().draft(p.space().idOf(parts));
}

std::vector<HostStep::Kind> kinds(const UpmemProgram& prog) {
  std::vector<HostStep::Kind> out;
  for (const HostStep& s : prog.plan.steps) out.push_back(s.kind);
  return out;
}

TEST(Intrinsics, SelectReadsEachDpusKeptValuesSerially) {
  const auto p = upmemProblem("sel", "n=4096");
  const UpmemProgram prog = lowerUpmem(*p, onDpus(*p, 4), upmemParams(p->backend()).codegen);
  using K = HostStep::Kind;
  EXPECT_EQ(kinds(prog), (std::vector<K>{K::Parallel, K::Launch, K::Parallel, K::Serial}));
  // 1,024 int64 per DPU in, half of them (4,096 B) out, after each tasklet's count (16 x 8 B).
  EXPECT_EQ(prog.plan.steps[0].bytesPerDpu[0], 8192);
  EXPECT_EQ(prog.plan.steps[2].bytesPerDpu[0], 128);
  EXPECT_EQ(prog.plan.steps[3].bytesPerDpu[0], 4096);
}

TEST(Intrinsics, AScanSplitOverDpusAddsTheHostsOffsetsInASecondKernel) {
  const auto p = upmemProblem("scan", "n=4096");
  const UpmemCodegenOptions o = upmemParams(p->backend()).codegen;
  using K = HostStep::Kind;
  EXPECT_EQ(kinds(lowerUpmem(*p, onDpus(*p, 1), o)), (std::vector<K>{K::Parallel, K::Launch, K::Parallel}));
  const UpmemProgram split = lowerUpmem(*p, onDpus(*p, 4), o);
  EXPECT_EQ(kinds(split), (std::vector<K>{K::Parallel, K::Launch, K::Parallel, K::HostWork, K::Parallel,
                                          K::Launch, K::Parallel}));
  EXPECT_TRUE(split.plan.steps[2].exchange);
  EXPECT_EQ(split.plan.steps[2].bytesPerDpu[3], 16 * 8);  // every tasklet's record
  EXPECT_EQ(split.plan.steps[4].bytesPerDpu[3], 16);      // the offset, in the kernel's arguments
}

// PrIM's HST-L shares one histogram per DPU (so 4,096 bins fit where 16 private ones do not) and locks a
// mutex per value: slower than HST-S at 256 bins.
TEST(Intrinsics, PrimsHstLSharesOneHistogramUnderAMutex) {
  const auto p = upmemProblem("hst", "n=65536,bins=4096");
  UpmemCodegenOptions o = upmemParams(p->backend()).codegen;
  o.sharedHistogram = true;
  EXPECT_TRUE(upmemViolations(*p, onDpus(*p, 1), o).empty());
  const auto q = upmemProblem("hst", "n=65536,bins=256");
  EvalOptions eo;
  eo.vendorUnits = 4;
  const auto baselines = targetOf(q->backend()).familyBaselines(*q, eo);
  const auto hstL = std::find_if(baselines.begin(), baselines.end(),
                                 [](const Baseline& b) { return b.name == "prim-hst-l"; });
  ASSERT_NE(hstL, baselines.end());
  ASSERT_TRUE(hstL->available) << hstL->reason;
  EXPECT_GT(hstL->eval.timeNs, targetOf(q->backend()).vendor(*q, eo).eval.timeNs);
}

// PrIM's SCAN-RSS: the first launch only sums each DPU's values (no handshake, no write), the second scans
// from the host's offsets: fewer MRAM writes than SSA, so faster.
TEST(Intrinsics, PrimsScanRssReducesFirstAndScansSecond) {
  const auto p = upmemProblem("scan", "n=65536");
  UpmemCodegenOptions o = upmemParams(p->backend()).codegen;
  o.scanReducesFirst = true;
  const UpmemProgram rss = lowerUpmem(*p, onDpus(*p, 4), o);
  using K = HostStep::Kind;
  ASSERT_EQ(kinds(rss), (std::vector<K>{K::Parallel, K::Launch, K::Parallel, K::HostWork, K::Parallel,
                                        K::Launch, K::Parallel}));
  auto has = [](const HostStep& launch, Step::Kind kind) {
    const auto& steps = launch.kernels.front().tasklets.front();
    std::function<bool(const std::vector<Step>&)> any = [&](const std::vector<Step>& seq) {
      return std::any_of(seq.begin(), seq.end(),
                         [&](const Step& s) { return s.kind == kind || any(s.body); });
    };
    return any(steps);
  };
  EXPECT_FALSE(has(rss.plan.steps[1], Step::Kind::Handshake));
  EXPECT_TRUE(has(rss.plan.steps[5], Step::Kind::Handshake));
  EvalOptions eo;
  eo.vendorUnits = 4;
  const auto baselines = targetOf(p->backend()).familyBaselines(*p, eo);
  const auto it = std::find_if(baselines.begin(), baselines.end(),
                               [](const Baseline& b) { return b.name == "prim-scan-rss"; });
  ASSERT_NE(it, baselines.end());
  EXPECT_LT(it->eval.timeNs, targetOf(p->backend()).vendor(*p, eo).eval.timeNs);
}

// Odd, tiny and uneven shapes in every element type, every kernel-level choice at random: each candidate the
// verifier lets through runs (a DMA below 8 B or not a multiple of 8 is padded, never refused by the engine).
TEST(Intrinsics, EveryVerifiedCandidateOfOddShapesRuns) {
  struct Case {
    const char* kernel;
    const char* dims;
  };
  int evaluated = 0;
  for (const Case& c :
       {Case{"sel", "n=1"}, Case{"uni", "n=33"}, Case{"scan", "n=1001"}, Case{"hst", "n=7,bins=3"},
        Case{"hst", "n=999,bins=100"}, Case{"bs", "q=7,n=1"}, Case{"bs", "q=3,n=1000"}}) {
    for (DType type : {DType::I32, DType::I64, DType::F32, DType::F64}) {
      const Kernel k = retyped(KernelLibrary::builtin().get(c.kernel), type);
      const Problem p(builtinBackends().get("upmem"), k, parseShape(k, c.dims));
      const ITarget& t = targetOf(p.backend());
      pim::test::RandomCandidates candidates(p, 3 + evaluated, 4096);
      for (int i = 0; i < 12; ++i) {
        const Draft d = candidates.next();
        if (!t.violations(p, d).empty()) continue;
        SCOPED_TRACE(std::string(c.kernel) + " " + c.dims + " " + std::string(dtypeName(type)) + " " +
                     std::to_string(d.id));
        EXPECT_NO_THROW(EXPECT_GT(evaluateDraft(p, d).totalCycles, 0));
        ++evaluated;
      }
    }
  }
  EXPECT_GT(evaluated, 200);
}

TEST(Intrinsics, PrivateHistogramsMustFitWram) {
  const auto p = upmemProblem("hst", "n=65536,bins=4096");
  const Draft d = onDpus(*p, 1);
  const auto v = upmemViolations(*p, d, upmemParams(p->backend()).codegen);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].limit, "WRAM");
  EXPECT_NE(v[0].message.find("16,384 B private histogram"), std::string::npos) << v[0].message;
  const auto q = upmemProblem("hst", "n=65536,bins=256");
  EXPECT_TRUE(upmemViolations(*q, onDpus(*q, 1), upmemParams(q->backend()).codegen).empty());
}

}  // namespace
