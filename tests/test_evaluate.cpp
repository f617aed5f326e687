// SPDX-License-Identifier: Apache-2.0
// Draft evaluation across every registered backend: breakdowns are well-formed, bytes are conserved between
// the mapping and the banks, the optimizer passes move the breakdown the way DCC section 4.3 says, and
// kernels a backend cannot run are refused with the reason.
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <algorithm>
#include <set>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/mapping/bank_layout.h"
#include "engine/mapping/footprints.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/program.h"
#include "engine/target/registry.h"
#include "sim/bounds.h"
#include "tests/families/roofline_target.h"

namespace pim {
namespace {

using test::problem;

// A few kept drafts spread over the space.
std::vector<Draft> sampleDrafts(const Problem& p, std::size_t n) {
  std::vector<Draft> all;
  Pruner(p.space()).forEachKept([&](const Draft& d) {
    all.push_back(d);
    return true;
  });
  std::vector<Draft> out;
  for (std::size_t i = 0; i < all.size() && out.size() < n; i += std::max<std::size_t>(1, all.size() / n)) {
    out.push_back(all[i]);
  }
  return out;
}

std::string smallShape(const std::string& kernel) {
  if (kernel == "gemv") return "b=2,out=256,in=512";
  if (kernel == "attn") return "b=1,h=4,l=256,d=64";
  if (kernel == "attn_gqa") return "h=2,g=2,l=256,d=64";
  if (kernel == "ttv" || kernel == "mmtv") return "i=8,j=32,k=64";
  if (kernel == "gemm") return "m=32,n=32,k=64";
  if (kernel == "conv2d") return "k=8,c=4,p=8,q=8";
  if (kernel == "conv2d_s2") return "k=8,c=4,p=4,q=4,r=3,s=3";
  if (kernel == "fc") return "k=64,c=128";
  if (kernel == "sel" || kernel == "uni" || kernel == "scan") return "n=2048";
  if (kernel == "hst") return "n=2048,bins=64";
  if (kernel == "bs") return "q=64,n=2048";
  if (kernel == "ts") return "n=2048,m=64";
  return "b=2,n=2048";
}

TEST(EvaluateConformance, EveryBackendAndKernelGivesAWellFormedBreakdown) {
  int evaluated = 0;
  for (const Backend& b : test::shippedBackends()) {
    for (const auto& entry : KernelLibrary::builtin().entries()) {
      if (b.family == "pim-hierarchy") continue;  // conv mappings, not banks: tests/test_pim_hierarchy.cpp
      const auto p = problem(b.name, entry.name, smallShape(entry.name));
      if (b.family == "upmem") continue;     // DPUs, not banks: tests/test_upmem_target.cpp
      if (b.family == "crossbar") continue;  // compiled layers on cores: tests/test_crossbar_layer_target.cpp
      for (const Draft& d : sampleDrafts(*p, 4)) {
        Evaluation e;
        try {
          e = evaluateDraft(*p, d);
        } catch (const InputError&) {
          continue;  // tiles that do not fit the banks
        }
        SCOPED_TRACE(b.name + " " + entry.name + " " + p->space().label(d));
        for (auto c : e.cycles) EXPECT_GE(c, 0);
        EXPECT_EQ(e.cycles[0] + e.cycles[1] + e.cycles[2], e.totalCycles);
        EXPECT_GT(e.cycles[1], 0);
        EXPECT_NEAR(e.timeNs, static_cast<double>(e.totalCycles) * e.tCKns, 1e-6 * e.timeNs);
        // Every bank of every simulated channel, PIM or not (hbm2-pim's second rank holds no PIM units).
        EXPECT_EQ(e.unitStats.units(), static_cast<std::size_t>(b.totalGroups()) *
                                           b.group.pseudoChannelsPerGroup * b.dram.banksPerPseudoChannel());
        // Bytes are conserved: every element of every input reaches the banks, and the host writes at least
        // what the layout holds of the inputs a call moves (resident ones are placed once, not per call).
        const TileMapping m = mapDraft(p->space(), d, IndexingStrategy::Exact);
        const BankLayout layout = placeOnBanks(p->kernel(), m, b);
        std::int64_t mapped = 0, placed = 0, inputs = 0, written = 0;
        for (const CoreTile& c : m.cores) {
          for (std::size_t t = 0; t < p->kernel().tensors.size(); ++t) {
            mapped +=
                c.tensors[t].elements * static_cast<std::int64_t>(dtypeBytes(p->kernel().tensors[t].dtype));
          }
        }
        for (const auto& bank : layout.banks) {
          placed += bank.bytes;
          for (const auto& s : bank.slices) {
            if (p->kernel().tensors[s.tensor].role == TensorRole::Input && !p->isResident(s.tensor))
              inputs += s.bytes;
          }
        }
        const auto& decls = targetOf(b).statistics();
        const auto column = static_cast<std::size_t>(
            std::find_if(decls.begin(), decls.end(),
                         [](const StatDecl& s) { return s.key == "bytes_written"; }) -
            decls.begin());
        ASSERT_LT(column, decls.size());
        for (std::size_t u = 0; u < e.unitStats.units(); ++u)
          written += static_cast<std::int64_t>(e.unitStats.at(u, column));
        EXPECT_EQ(mapped, placed);
        EXPECT_GE(written, inputs);
        ++evaluated;
      }
    }
  }
  EXPECT_GT(evaluated, 40);
}

// The fast footprint mapping (unions per part position) gives every number of the full mapping, draft by
// draft: library kernels on every backend and DCC's example, whose references (A[b], A[b+1], A[i*2]) make
// unions of shifted and strided index sets, under both indexing strategies.
TEST(EvaluateConformance, FootprintsEqualTheFullMapping) {
  auto same = [](const DraftSpace& space, const Draft& d, IndexingStrategy s) {
    SCOPED_TRACE(space.kernel().name + " " + space.label(d));
    const DraftFootprints fast = mapFootprints(space, d, s);
    const DraftFootprints slow = footprintsOf(space.kernel(), mapDraft(space, d, s));
    EXPECT_EQ(fast.groupsUsed, slow.groupsUsed);
    EXPECT_EQ(fast.coresPerGroup, slow.coresPerGroup);
    EXPECT_EQ(fast.elements, slow.elements);
    EXPECT_EQ(fast.idle, slow.idle);
    EXPECT_EQ(fast.outputBoxes, slow.outputBoxes);
    EXPECT_EQ(fast.paddedElements, slow.paddedElements);
  };
  int checked = 0;
  for (const Backend& b : test::shippedBackends()) {
    if (b.family == "pim-hierarchy") continue;  // no banks to place DCC's tiles on
    for (const auto& entry : KernelLibrary::builtin().entries()) {
      const auto p = problem(b.name, entry.name, smallShape(entry.name));
      for (const Draft& d : sampleDrafts(*p, 6)) {
        SCOPED_TRACE(b.name);
        same(p->space(), d, IndexingStrategy::Exact);
        const TileMapping full = mapDraft(p->space(), d, IndexingStrategy::Exact);
        const DraftFootprints fast = mapFootprints(p->space(), d, IndexingStrategy::Exact);
        try {
          const BankLayout layout = placeOnBanks(p->kernel(), full, b);
          const PlacementTotals totals = placementTotals(p->kernel(), fast, b);
          EXPECT_EQ(totals.placedBytes, layout.placedBytes);
          EXPECT_EQ(totals.paddingBytes, layout.paddingBytes);
          EXPECT_EQ(totals.banksUsed, layout.banksUsed);
        } catch (const InputError&) {
          EXPECT_THROW(placementTotals(p->kernel(), fast, b), InputError);
        }
        ++checked;
      }
    }
  }
  // Every draft of DCC's section 4.2 example (2 groups x 4 cores, SIMD 16: 936 drafts).
  const Kernel example = loadKernelFile(std::string(PIMSCOPE_DATA_DIR) + "/kernels/dcc_example.pim");
  const Shape shape = parseShape(example, "n=12,m=3,p=16");
  const DraftSpace space(example, buildDimensionSets(example, shape), Resources{2, 4, 16});
  space.forEach([&](const Draft& d) {
    same(space, d, IndexingStrategy::Exact);
    same(space, d, IndexingStrategy::Expand);
    ++checked;
    return !::testing::Test::HasFailure();
  });
  EXPECT_GT(checked, 1000);
}

// The core sizes by iteration counts (shared by cores whose parts give equal counts) equal the sizes of
// every core's full mapping, core by core and in order: library kernels on every backend, and DCC's example,
// which reads A twice and so is mapped core by core.
TEST(EvaluateConformance, CoreSizesEqualTheFullMapping) {
  auto same = [](const DraftSpace& space, const Draft& d, IndexingStrategy s) {
    SCOPED_TRACE(space.kernel().name + " " + space.label(d));
    std::vector<CoreSizes> slow, fast;
    forEachCoreTile(space, d, s, [&](const CoreTile& t) { slow.push_back(sizesOf(t)); });
    forEachCoreSizes(space, d, s, [&](const CoreSizes& c) { fast.push_back(c); });
    EXPECT_EQ(fast, slow);
  };
  int checked = 0;
  for (const Backend& b : test::shippedBackends()) {
    if (b.family == "pim-hierarchy") continue;
    for (const auto& entry : KernelLibrary::builtin().entries()) {
      const auto p = problem(b.name, entry.name, smallShape(entry.name));
      for (const Draft& d : sampleDrafts(*p, 4)) {
        SCOPED_TRACE(b.name);
        same(p->space(), d, IndexingStrategy::Exact);
        same(p->space(), d, IndexingStrategy::Expand);
        ++checked;
      }
    }
  }
  const Kernel example = loadKernelFile(std::string(PIMSCOPE_DATA_DIR) + "/kernels/dcc_example.pim");
  const DraftSpace space(example, buildDimensionSets(example, parseShape(example, "n=12,m=3,p=16")),
                         Resources{2, 4, 16});
  space.forEach([&](const Draft& d) {
    same(space, d, IndexingStrategy::Exact);
    ++checked;
    return !::testing::Test::HasFailure();
  });
  EXPECT_GT(checked, 500);
}

// Branch and bound may refuse a draft from its command counts alone (sim/bounds.h): on the programs of real
// drafts of every backend and kernel that bound stays at or below the simulated time.
TEST(EvaluateConformance, CountBoundOfEveryDraftProgramIsAtMostItsTime) {
  int checked = 0;
  for (const Backend& b : test::shippedBackends()) {
    if (b.family == "pim-hierarchy") continue;  // no command programs
    for (const auto& entry : KernelLibrary::builtin().entries()) {
      const auto p = problem(b.name, entry.name, smallShape(entry.name));
      for (const Draft& d : sampleDrafts(*p, 4)) {
        EvalOptions o;
        o.keepUnitStats = false;
        Evaluation e;
        sim::Program prog;
        try {
          e = evaluateDraft(*p, d, o);
          prog = draftProgram(*p, d, o);
        } catch (const InputError&) {
          continue;
        }
        sim::DeviceConfig cfg = deviceConfigFor(b, o.sim);
        cfg.finalize();
        for (const sim::ChannelProgram& cp : prog.programs)
          EXPECT_LE(sim::lowerBoundCycles(cfg, cp), e.totalCycles) << b.name << " " << p->space().label(d);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(EvaluateConformance, DifferentDraftsGetDifferentTimes) {
  const auto p = problem("hbm-pim", "gemv", "b=1,out=1024,in=1024");
  std::set<std::int64_t> totals;
  for (const Draft& d : sampleDrafts(*p, 12)) {
    try {
      totals.insert(evaluateDraft(*p, d).totalCycles);
    } catch (const InputError&) {
    }
  }
  EXPECT_GE(totals.size(), 5u);
}

// DCC 4.3 I: staging the copies through on-chip memory uses every channel for reads and writes alike.
TEST(OptimizerPasses, StagedRearrangementShortensInputRearrangement) {
  const auto p = problem("hbm-pim", "gemv", "b=1,out=4096,in=4096");
  const Draft d =
      p->space().draft(p->space().idOf(std::vector<PartChoice>{{80, 1, 0}, {1, 64, 0}, {1, 1, 0}}));
  EvalOptions staged, naive;
  staged.sim.refresh = naive.sim.refresh = false;  // refresh lands at different points of the two timelines
  naive.optimizer.stagedRearrangement = false;
  const Evaluation s = evaluateDraft(*p, d, staged), n = evaluateDraft(*p, d, naive);
  EXPECT_NEAR(static_cast<double>(s.cycles[1]), static_cast<double>(n.cycles[1]), 0.05 * n.cycles[1]);
  EXPECT_GT(n.cycles[0], 4 * s.cycles[0]);
  EXPECT_GT(n.serialSegments, 0);
}

// DCC 4.3 II: one broadcast per group instead of one command per bank relieves the command bus.
TEST(OptimizerPasses, GroupCommandsShortenCompute) {
  const auto p = problem("attacc", "red", "b=1,n=65536");
  const Draft d = p->space().draft(p->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {4, 64, 0}}));
  EvalOptions group, bank;
  bank.optimizer.groupCommands = false;
  const Evaluation g = evaluateDraft(*p, d, group), b = evaluateDraft(*p, d, bank);
  EXPECT_GT(b.cycles[1], 2 * g.cycles[1]);
}

TEST(EvaluateRefusals, KernelsABackendCannotRunAreRefusedWithTheReason) {
  const auto va = problem("attacc", "va", "b=1,n=1024");
  try {
    evaluateDraft(*va, va->space().draft(0));
    FAIL() << "attacc ran an element-wise kernel";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("element-wise"), std::string::npos) << e.what();
  }
  const auto attn = problem("hbm-pim", "attn", "b=1,h=2,l=64,d=32");
  EXPECT_THROW(evaluateDraft(*attn, attn->space().draft(0)), InputError);
  const auto up = problem("upmem", "red", "b=1,n=1024");
  EXPECT_THROW(evaluateDraft(*up, up->space().draft(0)), InputError);
  // A crossbar backend runs one conv or FC layer; of anything else it says why, and what compiles networks.
  const std::string why =
      unsupportedReason(builtinBackends().get("crossbar-arch-a"), KernelLibrary::builtin().get("red"));
  EXPECT_EQ(why.rfind("kernel 'red' is not a convolution or FC layer", 0), 0u) << why;
  EXPECT_NE(
      why.find("; whole networks compile with `pimscope-cli compile --backend crossbar-arch-a --network "
               "resnet18`"),
      std::string::npos)
      << why;
  EXPECT_EQ(unsupportedReason(builtinBackends().get("crossbar-arch-a"), KernelLibrary::builtin().get("gemv")),
            "");
}

TEST(Baselines, VendorAndGpuAreAvailableWhereTheSpecsDefineThem) {
  EXPECT_TRUE(vendorBaseline(*problem("hbm2-pim", "gemv", "b=1,out=1024,in=1024")).available);
  EXPECT_FALSE(vendorBaseline(*problem("hbm2-pim", "red", "b=1,n=1024")).available);
  const Baseline hbm = vendorBaseline(*problem("hbm-pim", "red", "b=2,n=4096"));
  ASSERT_TRUE(hbm.available);
  ASSERT_TRUE(hbm.draft.has_value());
  EXPECT_EQ(hbm.draft->parts[0].groups, 2);  // batches over channels
  EXPECT_EQ(hbm.draft->parts[1].cores, 64);  // the vector over all banks of a channel
  EXPECT_TRUE(vendorBaseline(*problem("attacc", "attn", "b=1,h=8,l=256,d=128")).available);
  // Grouped-query attention: AttAcc's layout of its K/V heads (over channels), head dimension (4 banks) and
  // sequence (16 bank groups); a group's query heads run one after another (their part stays (1, 1)).
  const auto gqa = problem("attacc", "attn_gqa", "h=8,g=4,l=256,d=128");
  const Baseline v = vendorBaseline(*gqa);
  ASSERT_TRUE(v.available) << v.reason;
  EXPECT_EQ(gqa->space().label(*v.draft), "[[8, 1, q0^y], [1, 1, q1^z], [1, 4, q2^e], [1, 16, K1^t]]");
  EXPECT_GT(gpuBaseline(*problem("attacc", "red", "b=1,n=1024")).eval.timeNs, 0);
}

// GEMV out=999,999,999 x in=4096 (f16) on gddr6-aim: the matrix, vector and output hold 2 x (999,999,999 x
// 4096 + 4096 + 999,999,999) = 8,193,999,999,998 bytes; its banks' PIM regions hold 256 banks x 8192 rows
// (the lower half of 16,384) x 2,048 bytes = 4,294,967,296. Refused before any draft, with both numbers.
TEST(DramPimCheck, AShapeThatCannotFitIsRefusedWithItsNumbers) {
  const auto p = test::problem("gddr6-aim", "gemv", "b=1,out=999999999,in=4096");
  try {
    requireRunnable(*p);
    FAIL() << "a 7.5 TiB GEMV was accepted on gddr6-aim";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("gemv cannot run on gddr6-aim"), std::string::npos) << m;
    EXPECT_NE(m.find("8193999999998 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("4294967296 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("256 banks x 8192 rows x 2048 bytes"), std::string::npos) << m;
  }
  // Half the capacity passes the check (a draft may still not fit; each one says why).
  EXPECT_NO_THROW(requireRunnable(*test::problem("gddr6-aim", "gemv", "b=1,out=131072,in=8192")));
}

}  // namespace
}  // namespace pim

namespace pim {
namespace {

// The details pane's one call maps and lowers once; what it shows must be what the separate calls give.
TEST(AnalyseCandidate, OneMappingGivesTheSameListingAndEvaluationAsTheSeparateCalls) {
  int compared = 0;
  for (const char* backend : {"hbm-pim", "attacc", "hbm2-pim", "gddr6-aim"}) {
    const auto p = test::problem(backend, "gemv", "b=2,out=256,in=512");
    for (const Draft& d : sampleDrafts(*p, 6)) {
      const CandidateAnalysis a = analyseCandidate(*p, d);
      ASSERT_TRUE(a.mapping.has_value());
      if (!a.evaluation) {
        EXPECT_FALSE(a.error.empty());
        EXPECT_THROW(evaluateDraft(*p, d), InputError);
        continue;
      }
      const Evaluation e = evaluateDraft(*p, d);
      EXPECT_EQ(a.evaluation->cycles, e.cycles) << backend << " " << d.id;
      EXPECT_EQ(a.evaluation->energyPj, e.energyPj);
      EXPECT_EQ(a.evaluation->unitsUsed, e.unitsUsed);
      EXPECT_EQ(a.evaluation->paddingBytes, e.paddingBytes);
      EXPECT_EQ(a.evaluation->unitStats.values, e.unitStats.values);
      EXPECT_EQ(a.listing, draftListing(*p, d));
      ASSERT_TRUE(a.layout.has_value());
      EXPECT_EQ(a.layout->banksUsed, e.unitsUsed);
      ++compared;
    }
  }
  EXPECT_GT(compared, 8);
}

TEST(AnalyseCandidate, AKernelTheBackendCannotRunSaysWhyAndStillShowsItsMapping) {
  const auto p = test::problem("attacc", "va", "b=2,n=2048");
  const Draft d = sampleDrafts(*p, 1).front();
  const CandidateAnalysis a = analyseCandidate(*p, d);
  EXPECT_TRUE(a.mapping.has_value());
  EXPECT_FALSE(a.evaluation.has_value());
  EXPECT_NE(a.error.find("va cannot run on attacc"), std::string::npos) << a.error;
}

}  // namespace
}  // namespace pim
