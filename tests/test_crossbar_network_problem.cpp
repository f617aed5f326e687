// SPDX-License-Identifier: Apache-2.0
// A whole network as a problem (Problem::network, docs/crossbar.md "Networks and layers in the explorer"):
// crossbar backends list the compiler's choices as its candidates and evaluate each as `compile` does; every
// other family refuses it with the way to run it.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/target/crossbar/layer_candidates.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"
#include "tests/evaluation_facts.h"

namespace pim {
namespace {

std::unique_ptr<Problem> networkProblem(const std::string& backend, const std::string& network) {
  return std::make_unique<Problem>(builtinBackends().get(backend), resolveNetwork(network, ""));
}

using test::fact;

TEST(CrossbarNetworkProblem, NamesAndKeysAreTheNetworks) {
  const auto lenet = networkProblem("crossbar-pimcomp", "lenet5");
  const auto resnet = networkProblem("crossbar-pimcomp", "resnet18");
  EXPECT_EQ(lenet->title(), "lenet5 (network) on crossbar-pimcomp");
  EXPECT_EQ(lenet->subject(), "lenet5");
  ASSERT_NE(lenet->network(), nullptr);
  EXPECT_EQ(lenet->storeKey().rfind("network=lenet5;digest=", 0), 0u) << lenet->storeKey();
  EXPECT_NE(lenet->storeKey(), resnet->storeKey());
  // The digest follows the content, not the file: a second load agrees, a changed stride does not.
  EXPECT_EQ(networkDigest(*resolveNetwork("lenet5", "")), networkDigest(*lenet->network()));
  Network changed = *lenet->network();
  for (NetworkNode& n : changed.nodes)
    if (n.op == NetworkOp::Conv) {
      n.conv.stride_h = 2;
      break;
    }
  EXPECT_NE(networkDigest(changed), networkDigest(*lenet->network()));
}

TEST(CrossbarNetworkProblem, KernelFamiliesRefuseItWithTheWayToRunIt) {
  for (const char* backend : {"hbm-pim", "attacc", "upmem", "pimopt-small"}) {
    const auto p = networkProblem(backend, "lenet5");
    const auto why = targetOf(p->backend()).check(*p);
    ASSERT_EQ(why.size(), 1u) << backend;
    EXPECT_NE(why.front().find("lenet5 is a whole network"), std::string::npos) << why.front();
    EXPECT_NE(why.front().find("compare --network lenet5"), std::string::npos) << why.front();
    EXPECT_THROW(requireRunnable(*p), InputError) << backend;
  }
  EXPECT_NO_THROW(requireRunnable(*networkProblem("crossbar-pimcomp", "lenet5")));
}

// The rules' plans first (HT then LL, im2col then auto), then one genetic search per mode and unfolding; each
// candidate evaluates to what `compile` reports for the same choices.
TEST(CrossbarNetworkProblem, CandidatesAreTheRulesThenTheGeneticSearchesAndEvaluateAsCompileDoes) {
  const auto p = networkProblem("crossbar-pimcomp", "lenet5");
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  ASSERT_TRUE(c.reasons().empty());
  const auto& choices = c.choices();
  ASSERT_GT(choices.size(), 3u);
  const std::size_t rules = choices.size() - 3;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const bool ga = i >= rules;
    EXPECT_EQ(choices[i].methods.front() == kGaMethod, ga) << choiceText(choices[i]);
    EXPECT_EQ(choices[i].replicas.empty(), ga) << choiceText(choices[i]);
    if (!ga) {
      EXPECT_EQ(choices[i].replicas.size(), 5u);  // lenet5: 2 CONV and 3 FC layers
    }
  }
  // LeNet-5's greedy keeps im2col in every layer in LL: auto's LL compiles would be im2col's, so they are
  // left out with why (HT's greedy picks other formats).
  EXPECT_EQ(choiceText(choices[rules]), "HT · im2col · ga");
  EXPECT_EQ(choiceText(choices[rules + 1]), "HT · auto · ga");
  EXPECT_EQ(choiceText(choices[rules + 2]), "LL · im2col · ga");
  ASSERT_EQ(c.leftOut().size(), 1u);
  EXPECT_EQ(c.leftOut().front(),
            "LL · auto: the greedy keeps im2col in every layer, so its compiles are im2col's");
  const Backend& b = p->backend();
  const Evaluation first = targetOf(b).evaluate(*p, Draft{0, {}}, EvalOptions{});
  NetworkCompileRequest r;
  r.compile = {.mode = crossbar::PipelineMode::Ht, .replication = "balance", .unfolding = {}};
  const NetworkCompileResult compiled = compileNetwork(b, *p->network(), r);
  EXPECT_EQ(c.choice(0).options.unfolding.all, "im2col");
  EXPECT_EQ(first.timeNs, *compiled.firstBatchLatencyNs);
  EXPECT_EQ(fact(first, "period_ns"), *compiled.periodNs);
  EXPECT_EQ(fact(first, "mvms"), static_cast<double>(compiled.mvmCount));
  EXPECT_EQ(fact(first, "replicas"), static_cast<double>(c.choice(0).totalReplicas()));
  EXPECT_DOUBLE_EQ(first.energyPj, compiled.energyNj * 1000);
  // Its layers are its stages: HT's times on each layer's busiest core bound the period.
  ASSERT_EQ(first.stages.size(), compiled.layers.size());
  ASSERT_TRUE(first.periodCycles.has_value());
  EXPECT_EQ(static_cast<double>(*first.periodCycles), *compiled.periodNs);
  for (std::size_t i = 0; i < first.stages.size(); ++i) {
    EXPECT_EQ(first.stages[i].name, compiled.layers[i].name);
    EXPECT_EQ(first.stages[i].subCycles.front(), compiled.layers[i].time.busiestMvmNs);
    std::int64_t sum = 0;
    for (std::int64_t c : first.stages[i].subCycles) sum += c;
    EXPECT_LE(sum, *first.periodCycles) << first.stages[i].name;
  }
  // The genetic search starts from the rules' plans: never slower than one of them in its mode and unfolding.
  const Evaluation ga = targetOf(b).evaluate(*p, Draft{rules + 2, {}}, EvalOptions{});  // LL · im2col · ga
  for (std::size_t i = 0; i < rules; ++i)
    if (choices[i].options.mode == crossbar::PipelineMode::Ll &&
        choices[i].options.unfolding.all == "im2col") {
      EXPECT_LE(ga.timeNs, targetOf(b).evaluate(*p, Draft{i, {}}, EvalOptions{}).timeNs)
          << choiceText(choices[i]);
    }
}

// The listing (the details pane's Commands tab, `export --format commands`) gives a network's layer pipeline:
// HT, each layer's time on its busiest core with the bottleneck starred; LL, each layer's start and finish.
TEST(CrossbarNetworkProblem, TheListingShowsTheLayerPipeline) {
  const auto p = networkProblem("crossbar-pimcomp", "lenet5");
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  std::uint64_t llRule = 0;
  while (c.choice(llRule).options.mode != crossbar::PipelineMode::Ll) ++llRule;
  for (std::uint64_t id : {std::uint64_t{0}, llRule}) {
    const bool ht = c.choice(id).options.mode == crossbar::PipelineMode::Ht;
    const std::string text = targetOf(p->backend()).listing(*p, Draft{id, {}}, EvalOptions{}, 400);
    EXPECT_NE(text.find(ht ? "layer pipeline" : "layer timeline"), std::string::npos) << text;
    int rows = 0, starred = 0;
    for (const NetworkNode& n : p->network()->nodes)
      if (n.op == NetworkOp::Conv || n.op == NetworkOp::Fc) {
        const auto at = text.find(" " + n.name + " ");
        rows += at != std::string::npos;
        starred += at != std::string::npos && at > 0 && text[at - 1] == '*';
      }
    EXPECT_EQ(rows, 5) << text;
    EXPECT_EQ(starred, ht ? 1 : 0) << text;
  }
}

TEST(CrossbarNetworkProblem, TheBottleneckStageIsTheOneOfMostTime) {
  EXPECT_EQ(bottleneckStage({}), -1);
  EXPECT_EQ(bottleneckStage({{"a", {}, 0, 5}}), -1);  // spans only: no period to bound
  EXPECT_EQ(bottleneckStage({{"a", {3, 4}, -1, -1}, {"b", {6, 2}, -1, -1}, {"c", {1, 1}, -1, -1}}), 1);
}

// A genetic search's candidate searches once per problem and timing: later compiles (the details pane's
// analysis, a listing) schedule the plan it found, with the same figures and the search's own account.
TEST(CrossbarNetworkProblem, AGeneticSearchsPlanIsReusedNotSearchedAgain) {
  const auto p = networkProblem("crossbar-pimcomp", "lenet5");
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  const std::uint64_t ga = c.choices().size() - 1;  // LL · im2col · ga
  const NetworkCompileResult first = c.compile(ga, crossbar::TimingMode::PimcompNn);
  const NetworkCompileResult again = c.compile(ga, crossbar::TimingMode::PimcompNn);
  ASSERT_NE(first.plan, nullptr);
  EXPECT_EQ(again.plan, first.plan);  // the same plan object: nothing was planned again
  EXPECT_EQ(again.latencyNs, first.latencyNs);
  EXPECT_EQ(again.energyNj, first.energyNj);
  EXPECT_EQ(again.gaChoice, first.gaChoice);
  EXPECT_EQ(again.gaHistory, first.gaHistory);
  // Another timing searches for itself (its fitness is that timing's).
  EXPECT_NE(c.compile(ga, crossbar::TimingMode::Intended).plan, first.plan);
}

// A cancelled run's compile stops at once (a genetic search polls per individual, a schedule per instruction
// group) and its candidate says so instead of reporting a compile cut short as its figures.
TEST(CrossbarNetworkProblem, ACancelledGeneticSearchIsNotACandidatesResult) {
  const auto p = networkProblem("crossbar-pimcomp", "lenet5");
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  const std::atomic<bool> cancelled{true};
  EvalOptions o;
  o.cancel = &cancelled;
  const std::uint64_t ga = c.choices().size() - 1;
  try {
    targetOf(p->backend()).evaluate(*p, Draft{ga, {}}, o);
    ADD_FAILURE() << "a cancelled genetic search evaluated";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("LL · im2col · ga: cancelled"), std::string::npos) << e.what();
  }
  EXPECT_THROW(targetOf(p->backend()).evaluate(*p, Draft{0, {}}, o), InputError);  // its schedule stops too
  o.cancel = nullptr;
  EXPECT_NO_THROW(targetOf(p->backend()).evaluate(*p, Draft{0, {}}, o));
}

}  // namespace
}  // namespace pim
