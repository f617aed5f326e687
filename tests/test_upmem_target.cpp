// SPDX-License-Identifier: Apache-2.0
// The upmem target: UPMEM programs generated from drafts (engine/codegen/upmem_codegen.cpp) and their
// evaluation through the DPU model. Expected programs are derived by hand in the comments from the
// templates' sources (upmem.md, "Traced loop bodies"; PrIM's kernel structure).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <tuple>

#include "engine/codegen/upmem_codegen.h"
#include "engine/common/error.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/upmem/upmem_params.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using pim::test::expectInputError;
using sim::dpu::HostStep;
using sim::dpu::Step;
using sim::dpu::TaskletProgram;

std::unique_ptr<Problem> upmem(const std::string& kernel, const std::string& dims, DType t,
                               const Backend& b = builtinBackends().get("upmem")) {
  const Kernel k = retyped(KernelLibrary::builtin().get(kernel), t);
  return std::make_unique<Problem>(b, k, parseShape(k, dims));
}

// The draft giving `dpus` DPUs (within one rank up to 64) to `part` and one to every other part.
Draft splitOver(const Problem& p, int part, int groups, int cores) {
  std::vector<PartChoice> parts(static_cast<std::size_t>(p.space().partCount()));
  parts[static_cast<std::size_t>(part)].groups = groups;
  parts[static_cast<std::size_t>(part)].cores = cores;
  return p.space().draft(p.space().idOf(parts));
}

int partOf(const Problem& p, const std::string& tensor, int axis) {
  const int t = p.kernel().tensorIndex(tensor);
  const auto& sets = p.space().sets().sets;
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (const auto& c : sets[s].candidates)
      if (c.tensor == t && c.axis == axis) return static_cast<int>(s);
  return -1;
}

const sim::dpu::DpuKernel& launchedOn(const UpmemProgram& prog, std::size_t dpu) {
  for (const HostStep& s : prog.plan.steps)
    if (s.kind == HostStep::Kind::Launch) return s.kernels.at(static_cast<std::size_t>(s.kernelOf.at(dpu)));
  throw std::logic_error("no launch");
}

UpmemCodegenOptions options(const Problem& p) { return upmemParams(p.backend()).codegen; }

// VA int32, 4,096 elements on one DPU, 16 tasklets, 1,024-B blocks: 256 elements a block, 16 blocks, one per
// tasklet: 13 instructions, two 1,024-B reads, 9 x 256 = 2,304 instructions, one 1,024-B write.
TEST(UpmemCodegen, VectorAddIsPrimsBlockLoop) {
  const auto p = upmem("va", "b=1,n=4096", DType::I32);
  const UpmemProgram prog = lowerUpmem(*p, p->space().draft(0), options(*p));
  const auto& k = launchedOn(prog, 0);
  ASSERT_EQ(k.tasklets.size(), 16u);
  const TaskletProgram expected = {Step::issue(13), Step::mramRead(1024), Step::mramRead(1024),
                                   Step::issue(2304), Step::mramWrite(1024)};
  for (const auto& t : k.tasklets) EXPECT_EQ(t, expected);
  EXPECT_EQ(prog.dpusUsed, 1);
  EXPECT_EQ(prog.wramBytes, 16 * (3 * 1024 + 256));  // three blocks and a stack per tasklet
}

// GEMV int32, 32 rows of 512 on one DPU: rows in pairs (8-B writes), 16 pairs, one per tasklet. A row: 2
// instructions (accumulator), 2 blocks of 256 elements, each 13 instructions, a 1,024-B read of W and of x
// and 256 x (2 x 2 operands + __mulsi3 (7 + 31 steps) + 1 accumulate + 1 branch) = 256 x 44 instructions.
TEST(UpmemCodegen, GemvGivesTaskletsRowPairs) {
  const auto p = upmem("gemv", "b=1,out=32,in=512", DType::I32);
  const UpmemProgram prog = lowerUpmem(*p, p->space().draft(0), options(*p));
  const std::vector<Step> block = {Step::issue(13), Step::mramRead(1024), Step::mramRead(1024),
                                   Step::issue(256 * 44)};
  const std::vector<Step> row = {Step::issue(2), Step::loop(2, block)};
  const TaskletProgram expected = {Step::loop(2, row), Step::mramWrite(8)};
  for (const auto& t : launchedOn(prog, 0).tasklets) EXPECT_EQ(t, expected);
}

// Four rows on a DPU of 16 tasklets: PrIM's GEMV gives the two row pairs to tasklets 0 and 1 (the others
// idle); otherwise each row's 4 blocks are split over tasklets 0..3, which meet at a barrier.
TEST(UpmemCodegen, PrimsOutputAssignmentLeavesTaskletsIdle) {
  const auto p = upmem("gemv", "b=1,out=4,in=1024", DType::I32);
  UpmemCodegenOptions o = options(*p);
  o.split = TaskletSplit::Outputs;
  const UpmemProgram primProgram = lowerUpmem(*p, p->space().draft(0), o);
  const auto& prim = launchedOn(primProgram, 0);
  EXPECT_FALSE(prim.tasklets[1].empty());
  EXPECT_TRUE(prim.tasklets[2].empty());
  o.split = TaskletSplit::Auto;
  const UpmemProgram splitProgram = lowerUpmem(*p, p->space().draft(0), o);
  const auto& split = launchedOn(splitProgram, 0);
  EXPECT_EQ(split.tasklets[3].back(), Step::barrier());
  const Baseline v = vendorBaseline(*p);
  ASSERT_TRUE(v.available) << v.reason;
  EXPECT_NE(v.summary.find("output assignment"), std::string::npos);
}

// RED int64, 4,096 elements on one DPU: 128 elements a block, 32 blocks, 2 per tasklet; per element 2
// (operand) + 1 (add) + 3 (int64 carry, upmem.md) + 1 (branch) = 7. Then a barrier, and tasklet 0 adds the
// 16 partial sums (16 x (2 + 1) + 2 = 50 instructions) and writes the 8-B result.
TEST(UpmemCodegen, ReductionMeetsAtABarrierAndTaskletZeroAdds) {
  const auto p = upmem("red", "b=1,n=4096", DType::I64);
  const UpmemProgram prog = lowerUpmem(*p, p->space().draft(0), options(*p));
  const std::vector<Step> block = {Step::issue(13), Step::mramRead(1024), Step::issue(128 * 7)};
  const auto& k = launchedOn(prog, 0);
  EXPECT_EQ(k.tasklets[0], (TaskletProgram{Step::issue(2), Step::loop(2, block), Step::barrier(),
                                           Step::issue(50), Step::mramWrite(8)}));
  EXPECT_EQ(k.tasklets[5], (TaskletProgram{Step::issue(2), Step::loop(2, block), Step::barrier()}));
}

// RED split over 2 ranks x 64 DPUs: each DPU's partial sum goes back to the host, which adds 127 of them.
TEST(UpmemCodegen, AReductionSplitOverDpusIsMergedByTheHost) {
  const auto p = upmem("red", "b=1,n=1048576", DType::I64);
  const UpmemProgram prog = lowerUpmem(*p, splitOver(*p, partOf(*p, "x", 1), 2, 64), options(*p));
  EXPECT_EQ(prog.dpusUsed, 128);
  EXPECT_EQ(prog.mergedPartials, 127);
  EXPECT_EQ(prog.plan.steps.back().kind, HostStep::Kind::HostWork);
  EXPECT_EQ(prog.plan.steps.front().kind, HostStep::Kind::Parallel);
  EXPECT_EQ(prog.plan.steps.front().bytesPerDpu[0], 1048576 / 128 * 8);
}

// GEMV's rows over DPUs: every DPU needs the whole vector, which is broadcast.
TEST(UpmemCodegen, AnOperandEveryDpuNeedsWholeIsBroadcast) {
  const auto p = upmem("gemv", "b=1,out=4096,in=1024", DType::I32);
  const UpmemProgram prog = lowerUpmem(*p, splitOver(*p, partOf(*p, "W", 0), 1, 64), options(*p));
  ASSERT_EQ(prog.plan.steps.front().kind, HostStep::Kind::Broadcast);  // x (W is resident)
  EXPECT_EQ(prog.plan.steps.front().bytesPerDpu[63], 4096);
}

TEST(UpmemCodegen, LimitsAreRefusedWithTheirValues) {
  Backend b = builtinBackends().get("upmem");
  b.setParameters({{"pim.tasklets", 24}, {"pim.blockBytes", 2048}});
  const auto p = upmem("va", "b=1,n=4096", DType::I32, b);
  expectInputError([&] { evaluateDraft(*p, p->space().draft(0)); },
                   {"WRAM", "24 tasklets", "2,048 B", "exceed the DPU's 65,536 B"});
  const auto big = upmem("va", "b=1,n=16777216", DType::I32);  // 3 x 64 MB on one DPU
  expectInputError([&] { evaluateDraft(*big, big->space().draft(0)); }, {"MRAM", "67,108,864 B"});
  const auto huge = upmem("va", "b=1,n=1099511627776", DType::I32);  // 12 TiB over 2,560 x 64 MiB
  ASSERT_EQ(targetOf(huge->backend()).check(*huge).size(), 1u);
  EXPECT_NE(targetOf(huge->backend()).check(*huge).front().find("does not fit"), std::string::npos);
  const auto f16 = test::problem("upmem", "va", "b=1,n=4096");
  ASSERT_FALSE(targetOf(f16->backend()).check(*f16).empty());
  EXPECT_NE(targetOf(f16->backend()).check(*f16).front().find("--dtype"), std::string::npos);
}

// Every library kernel (int32) on sampled drafts: the five UPMEM phases add up to the three fixed ones, one
// row of statistics per DPU of the system, the host moves at least every input tile it sends.
TEST(UpmemTarget, EveryLibraryKernelGivesAWellFormedEvaluation) {
  int evaluated = 0;
  for (const auto& entry : KernelLibrary::builtin().entries()) {
    const Kernel k = retyped(KernelLibrary::builtin().get(entry.name), DType::I32);
    const Problem p(builtinBackends().get("upmem"), k, parseShape(k, ""));
    if (!targetOf(p.backend()).check(p).empty()) continue;  // softmax: no template
    for (std::uint64_t id : {std::uint64_t{0}, p.space().size() / 2, p.space().size() - 1}) {
      const Draft d = p.space().draft(id);
      Evaluation e;
      try {
        e = evaluateDraft(p, d);
      } catch (const InputError&) {
        continue;  // does not fit a DPU's MRAM
      }
      SCOPED_TRACE(entry.name + " " + p.space().label(d));
      EXPECT_EQ(e.cycles[0] + e.cycles[1] + e.cycles[2], e.totalCycles);
      EXPECT_EQ(std::accumulate(e.subCycles.begin(), e.subCycles.end(), std::int64_t{0}), e.totalCycles);
      EXPECT_GT(e.cycles[1], 0);
      EXPECT_EQ(e.unitStats.units(), 2560u);
      EXPECT_GT(e.energyPj, 0);
      ++evaluated;
    }
  }
  EXPECT_GE(evaluated, 15);
}

// The vendor schedule is PrIM's: the largest tensor's outer axis over a power of two of DPUs, the fastest.
TEST(UpmemTarget, VendorIsPrimsSplitAtTheFastestPowerOfTwo) {
  const auto p = upmem("va", "b=1,n=2621440", DType::I32);
  const Baseline v = vendorBaseline(*p);
  ASSERT_TRUE(v.available) << v.reason;
  const auto& part = v.draft->parts[static_cast<std::size_t>(partOf(*p, "x", 1))];
  const int dpus = part.groups * part.cores;
  EXPECT_EQ(dpus & (dpus - 1), 0);
  for (int other : {dpus / 2, dpus * 2}) {
    if (other < 1 || other > 2048) continue;
    const Evaluation e =
        evaluateDraft(*p, splitOver(*p, partOf(*p, "x", 1), std::max(1, other / 64), std::min(64, other)));
    EXPECT_GE(e.totalCycles, v.eval.totalCycles) << other << " DPUs";
  }
}

// What-if edits reach the model: a longer same-tasklet gap or launch overhead never makes a run faster.
TEST(UpmemTarget, SlowerHardwareIsNeverFaster) {
  const auto base = upmem("gemv", "b=1,out=4096,in=1024", DType::I32);
  const Draft d = splitOver(*base, partOf(*base, "W", 0), 1, 64);
  const auto t0 = evaluateDraft(*base, d).totalCycles;
  for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{
           {"pim.minTaskletCPI", 14}, {"pim.launchMs", 0.1}, {"pim.dmaServicePerByte", 1.0}}) {
    Backend b = builtinBackends().get("upmem");
    b.setParameter(key, value);
    const auto p = upmem("gemv", "b=1,out=4096,in=1024", DType::I32, b);
    EXPECT_GT(evaluateDraft(*p, d).totalCycles, t0) << key;
  }
}

// What-if: every pim.* parameter the target does not declare unread changes the time of one of four probes
// (parallel transfers both ways; a broadcast and multiplies; a barrier and the host's merge); the limits
// (MRAM, DMA size, stacks) are pinned by LimitsAreRefusedWithTheirValues. Declared-unread ones change none.
TEST(UpmemTarget, EveryTimingParameterChangesATime) {
  auto probe = [](const Backend& b) {
    std::vector<std::int64_t> t;
    const auto va = upmem("va", "b=1,n=262144", DType::I32, b);
    t.push_back(evaluateDraft(*va, splitOver(*va, partOf(*va, "x", 1), 2, 64)).totalCycles);
    t.push_back(evaluateDraft(*va, splitOver(*va, partOf(*va, "x", 1), 1, 4)).totalCycles);  // one-DPU rates
    const auto gemv = upmem("gemv", "b=1,out=4096,in=1024", DType::I32, b);
    t.push_back(evaluateDraft(*gemv, splitOver(*gemv, partOf(*gemv, "W", 0), 1, 64)).totalCycles);
    const auto red = upmem("red", "b=1,n=1048576", DType::I64, b);
    t.push_back(evaluateDraft(*red, splitOver(*red, partOf(*red, "x", 1), 2, 64)).totalCycles);
    return t;
  };
  const Backend& shipped = builtinBackends().get("upmem");
  const auto before = probe(shipped);
  std::set<std::string> unread;
  for (const auto& u : targetOf(shipped).unreadParameters(shipped)) unread.insert(u.key);
  for (const Parameter& p : shipped.parameters) {
    if (p.key.rfind("pim.", 0) != 0 || p.key == "pim.MRAM_bytes" || p.key == "pim.dmaMaxBytes" ||
        p.key == "pim.stackBytes")
      continue;
    Backend b = shipped;
    // A tenth binds even the aggregate ceilings on 2 ranks; a block stays a DMA size.
    const double v = p.value == 0 ? 0.01 : p.key == "pim.blockBytes" ? p.value / 2 : p.value / 10;
    b.setParameter(p.key, p.integer ? std::max(1.0, std::floor(v)) : v);
    EXPECT_EQ(probe(b) != before, unread.count(p.key) == 0) << p.key;
  }
}

// PrIM's NR_DPUS given (`simulate --dpus`): exactly that many DPUs, ranks filled first, or the reason why
// not.
TEST(UpmemTarget, VendorOnGivenDpusIsPrimsNrDpus) {
  const auto p = upmem("va", "b=1,n=2621440", DType::I32);
  const auto part = static_cast<std::size_t>(partOf(*p, "x", 1));
  for (const auto& [dpus, groups, cores] :
       std::vector<std::array<int, 3>>{{1, 1, 1}, {4, 1, 4}, {128, 2, 64}}) {
    EvalOptions o;
    o.vendorUnits = dpus;
    const Baseline v = vendorBaseline(*p, o);
    ASSERT_TRUE(v.available) << dpus << ": " << v.reason;
    EXPECT_EQ(v.draft->parts[part].groups, groups) << dpus;
    EXPECT_EQ(v.draft->parts[part].cores, cores) << dpus;
    EXPECT_NE(v.summary.find(std::to_string(dpus) + " DPUs (as given)"), std::string::npos) << v.summary;
  }
  for (const auto& [dpus, why] : std::vector<std::pair<int, std::string>>{
           {100, "a multiple of it"}, {4096, "the backend has 2560 (40 ranks x 64)"}}) {
    EvalOptions o;
    o.vendorUnits = dpus;
    const Baseline v = vendorBaseline(*p, o);
    EXPECT_FALSE(v.available) << dpus;
    EXPECT_NE(v.reason.find(why), std::string::npos) << v.reason;
  }
}

// Slice simulation against every instruction simulated (`simulate --no-extrapolation`): the DPU kernel phase
// agrees within 1% (alpha), and only the sliced run says it extrapolated.
TEST(UpmemTarget, ExtrapolationAgreesWithFullSimulation) {
  struct Case {
    std::string kernel, dims;
    DType type;
    std::string tensor;
    int axis = 0;  // split over 4 DPUs
  };
  for (const Case& c :
       {Case{"va", "b=1,n=4194304", DType::I32, "x", 1}, Case{"red", "b=1,n=1048576", DType::I64, "x", 1},
        Case{"gemv", "b=1,out=16384,in=512", DType::I32, "W", 0}}) {
    const auto p = upmem(c.kernel, c.dims, c.type);
    const Draft d = splitOver(*p, partOf(*p, c.tensor, c.axis), 1, 4);
    EvalOptions full;
    full.sim.extrapolate = false;
    const Evaluation sliced = evaluateDraft(*p, d), exact = evaluateDraft(*p, d, full);
    const auto kernel = [](const Evaluation& e) { return static_cast<double>(e.subCycles.at(1)); };
    EXPECT_NEAR(kernel(sliced) / kernel(exact), 1.0, 0.01) << c.kernel;
    auto fact = [](const Evaluation& e) {
      for (const auto& [k, v] : e.facts)
        if (k == "extrapolated") return v;
      return -1.0;
    };
    EXPECT_EQ(fact(exact), 0) << c.kernel;
    EXPECT_EQ(fact(sliced), 1) << c.kernel;
  }
}

// IMTP's "PrIM+search": PrIM's split with DPUs, tasklets and block grid-searched. PrIM's own choices (16
// tasklets, 1,024-B blocks, the fastest power of two of DPUs) are in the grid, so it is never slower than the
// vendor schedule; WRAM refuses 16 tasklets of three 2,048-B blocks (16 x (3 x 2,048 + 256) > 65,536 B).
TEST(UpmemTarget, PrimSearchIsNeverSlowerThanPrim) {
  for (const auto& [kernel, dims, type] : std::vector<std::tuple<std::string, std::string, DType>>{
           {"va", "b=1,n=2621440", DType::I32}, {"gemv", "b=1,out=8192,in=1024", DType::I32}}) {
    const auto p = upmem(kernel, dims, type);
    const Baseline vendor = vendorBaseline(*p);
    const auto family = familyBaselines(*p);
    ASSERT_EQ(family.size(), 1u);
    const Baseline& search = family.front();
    EXPECT_EQ(search.name, "prim-search");
    ASSERT_TRUE(search.available) << search.reason;
    EXPECT_LE(search.eval.totalCycles, vendor.eval.totalCycles) << kernel;
    EXPECT_NE(search.summary.find("choices refused by a limit"), std::string::npos) << search.summary;
    EXPECT_EQ(search.summary.find(" 0 choices refused"), std::string::npos) << search.summary;
  }
  EXPECT_TRUE(familyBaselines(*pim::test::problem("hbm-pim", "va", "b=1,n=4096")).empty());
}

// The verifier returns every limit a schedule breaks, with its value, and lowerUpmem refuses the same list:
// VA of 8,388,608 int32 on one DPU takes 3 x 32 MiB of MRAM, and 24 tasklets of three 2,048-B blocks take 24
// x (3 x 2,048 + 256) = 153,600 B of WRAM.
TEST(UpmemTarget, VerifierListsEveryBrokenLimit) {
  const auto p = upmem("va", "b=1,n=8388608", DType::I32);
  const Draft one = splitOver(*p, partOf(*p, "x", 1), 1, 1);
  UpmemCodegenOptions o = options(*p);
  o.tasklets = 24;
  o.blockBytes = 2048;
  const auto v = upmemViolations(*p, one, o);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].limit, "WRAM");
  EXPECT_NE(v[0].message.find("153,600 B"), std::string::npos) << v[0].message;
  EXPECT_EQ(v[1].limit, "MRAM");
  EXPECT_NE(v[1].message.find("100,663,296 B"), std::string::npos) << v[1].message;
  try {
    lowerUpmem(*p, one, o);
    ADD_FAILURE() << "lowered";
  } catch (const LimitError& e) {
    ASSERT_EQ(e.violations().size(), 2u);
    EXPECT_EQ(e.violations()[1].limit, "MRAM");
  }
  EXPECT_TRUE(upmemViolations(*p, splitOver(*p, partOf(*p, "x", 1), 1, 64), options(*p)).empty());
}

// CoMoNM's Fig. 15 what-ifs (upmem.md, "What-if directions"; 16 tasklets, PrIM's schedule) that the backend's
// parameters can express: a DMA engine without contention (pim.dmaService* = 0, standing in for CoMoNM's
// multi-port constant-time DMA) leaves VA of 2^32 int32 within 1%; a 4-cycle pipeline with 4 tasklets and
// 2,048-B blocks makes MV of 2^15 x 2^14 faster by 1.7x +- 25%; a 44-cycle multiplier makes MM 2.18x +- 25%
// faster; 128 MB of MRAM leaves HST of 2^31 pixels within 1% (its tiles already fit). (The 128-KB-WRAM RED is
// not reproduced: README, Limitations.)
TEST(UpmemTarget, CoMoNMWhatIfsWithinTolerance) {
  auto vendorNs = [](const std::string& kernel, const std::string& dims,
                     const std::vector<std::pair<std::string, double>>& set) {
    Backend b = builtinBackends().get("upmem");
    for (const auto& [key, value] : set) b.setParameter(key, value);
    const Baseline v = vendorBaseline(*upmem(kernel, dims, DType::I32, b));
    EXPECT_TRUE(v.available) << v.reason;
    return v.eval.timeNs;
  };
  const double va = vendorNs("va", "b=1,n=4294967296", {});
  const double vaNoContention =
      vendorNs("va", "b=1,n=4294967296", {{"pim.dmaServiceBase", 0}, {"pim.dmaServicePerByte", 0}});
  EXPECT_NEAR(vaNoContention / va, 1.0, 0.01);
  const double mv = vendorNs("gemv", "b=1,out=32768,in=16384", {});
  const double mvCpi4 = vendorNs("gemv", "b=1,out=32768,in=16384",
                                 {{"pim.minTaskletCPI", 4}, {"pim.tasklets", 4}, {"pim.blockBytes", 2048}});
  EXPECT_NEAR(mv / mvCpi4, 1.7, 1.7 * 0.25);
  // A 44-cycle hardware multiplier instead of the __mulsi3 call (full-width operands): mm 2^10 x 2^10, 2.18x.
  const double mm = vendorNs("gemm", "m=1024,n=1024,k=1024", {});
  const double mmHwMul = vendorNs("gemm", "m=1024,n=1024,k=1024", {{"pim.hwMulCycles", 44}});
  EXPECT_NEAR(mm / mmHwMul, 2.18, 2.18 * 0.25);
  const double hst = vendorNs("hst", "n=2147483648,bins=256", {});
  const double hstMram = vendorNs("hst", "n=2147483648,bins=256", {{"pim.MRAM_bytes", 134217728}});
  EXPECT_NEAR(hstMram / hst, 1.0, 0.01);
}

}  // namespace
