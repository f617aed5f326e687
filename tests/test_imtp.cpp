// SPDX-License-Identifier: Apache-2.0
// Kernel-level choices beside a draft (engine/core/kernel_choices.h), UPMEM's axes, and the imtp strategy
// that searches drafts and choices together (engine/search/strategies/imtp_strategy.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "engine/codegen/upmem_codegen.h"
#include "engine/common/error.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/search/explorer.h"
#include "engine/target/upmem/upmem_params.h"
#include "tests/test_util.h"

namespace {

using namespace pim;

std::unique_ptr<Problem> upmem(const std::string& kernel, const std::string& dims, DType t,
                               const Backend& b = builtinBackends().get("upmem")) {
  const Kernel k = retyped(KernelLibrary::builtin().get(kernel), t);
  return std::make_unique<Problem>(b, k, parseShape(k, dims));
}

ChoiceAxes twoAxes() {
  return {{"a", "a", {5, 1, 2}, {"5 a", "1 a", "2 a"}}, {"b", "b", {7, 8}, {"7 b", "8 b"}}};
}

// Ids: draft + drafts x (choice index, axis 0 fastest); choice 0 is the draft itself.
TEST(CandidateIds, ExtendDraftIdsByTheChoices) {
  const CandidateIds ids(10, twoAxes());
  EXPECT_EQ(ids.choices(), 6u);
  EXPECT_EQ(ids.count(), 60u);
  EXPECT_EQ(ids.id(3, {0, 0}), 3u);
  EXPECT_EQ(ids.id(3, {2, 1}), 3u + 10u * (2 + 3 * 1));
  for (std::uint64_t id = 0; id < ids.count(); ++id) {
    const auto c = ids.choiceOf(id);
    EXPECT_EQ(ids.id(ids.draftOf(id), c), id);
  }
  EXPECT_EQ(ids.value(ids.id(3, {2, 1}), "a", -1), 2);
  EXPECT_EQ(ids.value(ids.id(3, {2, 1}), "b", -1), 8);
  EXPECT_EQ(ids.value(3, "missing", -1), -1);
  EXPECT_EQ(ids.label(3), "");
  EXPECT_EQ(ids.label(ids.id(3, {1, 1})), "1 a, 8 b");
  EXPECT_THROW(ids.id(10, {0, 0}), InputError);
  EXPECT_THROW(ids.id(0, {3, 0}), InputError);
}

// Choices that would overflow 64-bit ids are not addressable: the drafts stay.
TEST(CandidateIds, OverflowLeavesTheBackendsChoicesOnly) {
  const CandidateIds ids(UINT64_MAX / 4, twoAxes());
  EXPECT_EQ(ids.choices(), 1u);
  EXPECT_TRUE(ids.axes().empty());
  EXPECT_EQ(ids.count(), UINT64_MAX / 4);
}

// The upmem space addresses every draft with every choice; its size stays the drafts' and an id beyond the
// choices is refused with the range.
TEST(UpmemChoices, SpaceAddressesDraftsWithChoices) {
  const auto p = upmem("gemv", "b=1,out=256,in=512", DType::I32);
  const ITarget& t = targetOf(p->backend());
  const auto space = t.candidates(*p);
  const CandidateIds ids = t.candidateIds(*p);
  // tasklets, tile, tasklet split (GEMV reduces), loops, shared operands (x[b][i] across o)
  ASSERT_EQ(ids.axes().size(), 5u);
  EXPECT_EQ(ids.axes()[0].values.front(), 16);
  EXPECT_EQ(ids.axes()[1].values.front(), 1024);
  EXPECT_EQ(space->size(), p->space().size());
  EXPECT_EQ(space->addressable(), p->space().size() * ids.choices());
  const std::uint64_t id = ids.id(5, {4, 2, 1});
  const Draft d = space->candidate(id);
  EXPECT_EQ(d.id, id);
  EXPECT_EQ(d.parts, p->space().draft(5).parts);
  EXPECT_NE(space->label(d).find(
                "{8 tasklets, 64-B tiles, tasklets take outputs, generated code, streamed per output}"),
            std::string::npos)
      << space->label(d);
  EXPECT_EQ(space->why(id).kept, space->why(5).kept);
  EXPECT_THROW(space->candidate(space->addressable()), InputError);
  // No reduction, no split axis.
  const auto va = upmem("va", "b=1,n=4096", DType::I32);
  EXPECT_EQ(targetOf(va->backend()).choiceAxes(*va).size(), 3u);
}

// A candidate's choices are what the code generator runs: the same program as the backend's own choices
// edited to them.
TEST(UpmemChoices, ACandidateRunsItsChoices) {
  const auto p = upmem("va", "b=1,n=65536", DType::I32);
  const CandidateIds ids = targetOf(p->backend()).candidateIds(*p);
  const std::uint64_t draft = 7;
  // Tasklets 16 (the backend's), 1, 2, 4, 8, ...; tiles 1,024 B (the backend's), 32, 64, 128, ...
  const Evaluation e = evaluateDraft(*p, candidateOf(*p, ids.id(draft, {4, 3})));  // 8 tasklets, 128-B tiles
  Backend b = builtinBackends().get("upmem");
  b.setParameter("pim.tasklets", 8);
  b.setParameter("pim.blockBytes", 128);
  const auto edited = upmem("va", "b=1,n=65536", DType::I32, b);
  EXPECT_EQ(e.totalCycles, evaluateDraft(*edited, edited->space().draft(draft)).totalCycles);
  EXPECT_NE(e.totalCycles, evaluateDraft(*p, p->space().draft(draft)).totalCycles);
  for (const auto& [key, value] : e.facts) {
    if (key == "tasklets") {
      EXPECT_EQ(value, 8);
    }
  }
}

// The PrIM baselines name their choices in their draft's id, so simulating that id again gives their time.
TEST(UpmemChoices, BaselineDraftsReproduceTheirTimes) {
  const auto p = upmem("gemv", "b=1,out=1024,in=512", DType::I32);
  const Baseline v = vendorBaseline(*p);
  ASSERT_TRUE(v.available && v.draft) << v.reason;
  EXPECT_GE(v.draft->id, p->space().size());  // PrIM's output assignment is not the backend's own split
  EXPECT_EQ(evaluateDraft(*p, candidateOf(*p, v.draft->id)).totalCycles, v.eval.totalCycles);
  for (const Baseline& b : familyBaselines(*p)) {
    ASSERT_TRUE(b.available && b.draft) << b.reason;
    EXPECT_EQ(evaluateDraft(*p, candidateOf(*p, b.draft->id)).totalCycles, b.eval.totalCycles) << b.name;
  }
}

// The verifier reads the candidate's choices: 24 tasklets with three 2,048-B tiles each exceed 64 KB.
TEST(UpmemChoices, VerifierReadsTheChoices) {
  const auto p = upmem("va", "b=1,n=65536", DType::I32);
  const ITarget& t = targetOf(p->backend());
  const CandidateIds ids = t.candidateIds(*p);
  const auto& tasklets = ids.axes()[0].values;
  const auto& tiles = ids.axes()[1].values;
  const int t24 = static_cast<int>(std::find(tasklets.begin(), tasklets.end(), 24) - tasklets.begin());
  const int b2k = static_cast<int>(std::find(tiles.begin(), tiles.end(), 2048) - tiles.begin());
  const Draft d = candidateOf(*p, ids.id(0, {t24, b2k}));
  const auto v = t.violations(*p, d);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].limit, "WRAM");
  EXPECT_THROW(evaluateDraft(*p, d), LimitError);
  EXPECT_TRUE(t.violations(*p, p->space().draft(0)).empty());
}

ExploreOptions imtp(std::size_t trials, unsigned threads, std::uint64_t seed = 1) {
  ExploreOptions o;
  o.strategy = "imtp";
  o.sampling.trials = trials;
  o.sampling.batch = 32;
  o.sampling.population = 256;
  o.sampling.seed = seed;
  o.threads = threads;
  return o;
}

std::vector<std::uint64_t> trialIds(const Explorer& ex) {
  std::vector<std::uint64_t> ids;
  for (const DraftRecord& r : ex.records()) ids.push_back(r.draft.id);
  return ids;
}

// The same seed gives the same trials, in the same order, and the same pick on one thread or two; another
// seed gives other trials.
TEST(ImtpStrategy, SameSeedSameTrialsOnAnyThreadCount) {
  const auto p = upmem("gemv", "b=1,out=1024,in=512", DType::I32);
  const std::atomic<bool> never{false};
  Explorer one(*p, imtp(128, 1)), two(*p, imtp(128, 2)), other(*p, imtp(128, 2, 7));
  one.run(never);
  two.run(never);
  other.run(never);
  ASSERT_EQ(one.records().size(), 128u);
  EXPECT_EQ(trialIds(one), trialIds(two));
  EXPECT_NE(trialIds(one), trialIds(other));
  ASSERT_TRUE(one.best() && two.best());
  EXPECT_EQ(one.best()->draft.id, two.best()->draft.id);
  EXPECT_EQ(one.progress().refused, two.progress().refused);
  const std::vector<std::uint64_t> tried = trialIds(one);
  const std::set<std::uint64_t> unique(tried.begin(), tried.end());
  EXPECT_EQ(unique.size(), 128u);  // no candidate twice
}

// Nothing the verifier refuses reaches the model: every refused candidate is counted by its limit and no
// trial fails on a limit.
TEST(ImtpStrategy, TheVerifierFiltersBeforeAnyEvaluation) {
  const auto p = upmem("va", "b=1,n=262144", DType::I32);
  Explorer ex(*p, imtp(160, 2));
  const std::atomic<bool> never{false};
  ex.run(never);
  for (const DraftRecord& r : ex.records()) EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(ex.progress().refused.count("WRAM"), 0u);  // 24 tasklets x 3 tiles of 2 KiB, sampled at random
  for (const auto& [limit, n] : ex.progress().refused) EXPECT_GT(n, 0u) << limit;
}

// A space smaller than the trials is searched whole: every verified candidate once (CoMoNM Fig. 16's
// exhaustive walk of a small mapping space).
TEST(ImtpStrategy, ASmallSpaceIsSearchedWhole) {
  Backend b = builtinBackends().get("upmem");
  b.setParameters({{"system.devices", 1},
                   {"group.groupsPerDevice", 1},
                   {"core.coresPerGroup", 2},
                   {"core.threads", 2},
                   {"pim.tasklets", 1}});
  const auto p = upmem("va", "b=1,n=4096", DType::I32, b);
  const auto space = targetOf(b).candidates(*p);
  const CandidateIds ids = targetOf(b).candidateIds(*p);
  std::set<std::uint64_t> valid;
  space->forEachKept([&](const Draft& d) {
    for (std::uint64_t c = 0; c < ids.choices(); ++c) {
      const Draft cand = space->candidate(d.id + c * ids.drafts());
      if (targetOf(b).violations(*p, cand).empty()) valid.insert(cand.id);
    }
    return true;
  });
  ASSERT_GT(valid.size(), 10u);
  Explorer ex(*p, imtp(1000, 2));
  const std::atomic<bool> never{false};
  ex.run(never);
  const auto tried = trialIds(ex);
  EXPECT_EQ(std::set<std::uint64_t>(tried.begin(), tried.end()), valid);
  EXPECT_EQ(tried.size(), valid.size());
}

// The joint search beats PrIM and PrIM+search on the modelled system for a GEMV that 1-D row splits leave
// short of DPUs (IMTP section 7.1: 2-D tiling with a host reduction).
TEST(ImtpStrategy, BeatsPrimAndPrimSearchOnGemv) {
  const auto p = upmem("gemv", "b=1,out=512,in=8192", DType::I32);
  const auto best = exploreBest(*p, imtp(128, 2));
  ASSERT_TRUE(best && best->simulated);
  const Baseline prim = vendorBaseline(*p);
  const std::vector<Baseline> search = familyBaselines(*p);
  ASSERT_TRUE(prim.available && search.size() == 1 && search[0].available);
  EXPECT_LT(best->simulated->timeNs, prim.eval.timeNs);
  EXPECT_LT(best->simulated->timeNs, search[0].eval.timeNs);
}

// On a family without kernel-level choices imtp searches the drafts alone.
TEST(ImtpStrategy, SearchesDraftsWhereThereAreNoChoices) {
  const Kernel k = KernelLibrary::builtin().get("red");
  const Problem p(builtinBackends().get("hbm-pim"), k, parseShape(k, "b=1,n=1024"));
  EXPECT_TRUE(targetOf(p.backend()).choiceAxes(p).empty());
  Explorer ex(p, imtp(48, 2));
  const std::atomic<bool> never{false};
  ex.run(never);
  ASSERT_EQ(ex.records().size(), 48u);
  for (const DraftRecord& r : ex.records()) EXPECT_LT(r.draft.id, p.space().size());
  EXPECT_TRUE(ex.best().has_value());
}

}  // namespace

namespace {

// The best-so-far curve (explore --json's best_so_far_ns, the window's Search progress): infinity until a
// trial has a time; a failed trial or a lower bound (a draft stopped early) leaves it as it was.
TEST(BestSoFar, FollowsTheLeastCompleteTimeInTrialOrder) {
  auto timed = [](double ns, bool lowerBound = false) {
    DraftRecord r;
    auto e = std::make_shared<Evaluation>();
    e->timeNs = ns;
    e->lowerBound = lowerBound;
    r.simulated = e;
    return r;
  };
  DraftRecord failed;
  failed.error = "tiles do not fit";
  const std::vector<DraftRecord> records = {failed,           timed(500), timed(700),
                                            timed(100, true), timed(300), failed};
  const std::vector<double> curve = bestSoFarNs(records);
  ASSERT_EQ(curve.size(), 6u);
  EXPECT_TRUE(std::isinf(curve[0]));
  EXPECT_EQ(std::vector<double>(curve.begin() + 1, curve.end()),
            (std::vector<double>{500, 500, 500, 300, 300}));
  EXPECT_TRUE(bestSoFarNs({}).empty());
}

}  // namespace
