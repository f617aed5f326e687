// SPDX-License-Identifier: Apache-2.0
// The pim-hierarchy target (engine/target/pim_hierarchy, docs/convmap.md "The pim-hierarchy target"): conv
// and FC layers recognised from the DSL, backends that carry a hierarchy file's numbers, evaluations equal to
// the conv mapper's model, a reproducible list of valid candidates, and refusals with reasons.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <variant>

#include "engine/common/error.h"
#include "engine/convmap/evaluator.h"
#include "engine/convmap/mapspace.h"
#include "engine/convmap/trace_bridge.h"
#include "engine/kernel/dsl.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/conv_recognition.h"
#include "engine/target/pim_hierarchy/hierarchy_backend.h"
#include "engine/target/pim_hierarchy/hierarchy_evaluation.h"
#include "engine/target/pim_hierarchy/mapping_candidates.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

namespace cm = convmap;

ConvPattern recognised(const Kernel& k) {
  auto r = recogniseConv(k);
  if (auto* why = std::get_if<std::string>(&r)) ADD_FAILURE() << *why;
  return std::holds_alternative<ConvPattern>(r) ? std::get<ConvPattern>(r) : ConvPattern{};
}

std::string refusal(const Kernel& k) {
  auto r = recogniseConv(k);
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string("(recognised)");
}

std::string loopOf(const Kernel& k, const ConvPattern& p, int dim) {
  return p.loop[dim] < 0 ? "-" : k.loops[static_cast<std::size_t>(p.loop[dim])].var;
}

const char* kStrided = R"(kernel conv_s2(n = 1, k = 8, c = 4, p = 7, q = 5, r = 3, s = 3)
  input  W: f16[k][c][s][r]
  input  I: f16[n][c][2*q + s - 2][2*p + r - 2]
  output O: f16[n][k][q][p]
  for n < n, k < k, c < c, q < q, p < p, s < s, r < r: O[n][k][q][p] += W[k][c][s][r] * I[n][c][2*q+s][2*p+r]
end
)";

TEST(ConvRecognition, LibraryConv2dHasEveryLoopInItsRole) {
  const Kernel k = resolveKernel("conv2d", "");
  const ConvPattern p = recognised(k);
  const std::string want[] = {"r", "s", "p", "q", "c", "k", "n"};
  for (int d = 0; d < cm::kDims; ++d) EXPECT_EQ(loopOf(k, p, d), want[d]) << cm::kDimNames[d];
  EXPECT_EQ(k.tensors[static_cast<std::size_t>(p.tensor[cm::Input])].name, "I");
  EXPECT_EQ(k.tensors[static_cast<std::size_t>(p.tensor[cm::Weight])].name, "W");
  EXPECT_EQ(p.strideW, 1);
  const cm::ConvLayer l = convLayerOf(k, p, parseShape(k, "k=16,c=8,p=14,q=12"));
  EXPECT_EQ(cm::shapeText(l), "R3 S3 P14 Q12 C8 K16 N1");
  EXPECT_EQ(l.elementBytes, (std::array<std::int64_t, 3>{2, 2, 2}));  // f16
}

TEST(ConvRecognition, FcAndGemvAreFcLayers) {
  for (const char* name : {"fc", "gemv"}) {
    const Kernel k = resolveKernel(name, "");
    const ConvPattern p = recognised(k);
    for (int d : {cm::R, cm::S, cm::P, cm::Q}) EXPECT_EQ(p.loop[d], -1) << name << " " << cm::kDimNames[d];
    EXPECT_GE(p.loop[cm::K], 0) << name;
    EXPECT_GE(p.loop[cm::C], 0) << name;
    EXPECT_EQ(k.tensors[static_cast<std::size_t>(p.tensor[cm::Weight])].name, "W") << name;  // the resident
  }
  const Kernel g = resolveKernel("gemv", "");
  const ConvPattern p = recognised(g);
  EXPECT_EQ(loopOf(g, p, cm::N), "b");
  EXPECT_EQ(loopOf(g, p, cm::K), "o");
  EXPECT_EQ(loopOf(g, p, cm::C), "i");
}

TEST(ConvRecognition, StridedWindowGivesTheStride) {
  const Kernel k = parseKernel(kStrided, "strided.pim");
  const ConvPattern p = recognised(k);
  EXPECT_EQ(p.strideW, 2);
  EXPECT_EQ(p.strideH, 2);
  const cm::ConvLayer l = convLayerOf(k, p, parseShape(k, ""));
  EXPECT_EQ(l.inputWidth(), 2 * 6 + 2 + 1);
  EXPECT_EQ(l.inputHeight(), 2 * 4 + 2 + 1);
}

TEST(ConvRecognition, RefusesWhatIsNoLayerWithTheReason) {
  EXPECT_EQ(refusal(resolveKernel("red", "")).rfind("kernel 'red' is not a convolution or FC layer: ", 0), 0u)
      << refusal(resolveKernel("red", ""));
  EXPECT_NE(refusal(resolveKernel("mmtv", "")).find("grouped or depthwise"), std::string::npos);
  EXPECT_NE(refusal(resolveKernel("red", "")).find("product of two tensors"), std::string::npos);
  EXPECT_NE(refusal(resolveKernel("va", "")).find("does not accumulate"), std::string::npos);
  EXPECT_NE(refusal(resolveKernel("attn", "")).find("statements"), std::string::npos);
  // The input indexed C before N: the model's addresses would not be the kernel's.
  const Kernel swapped = parseKernel(R"(kernel fc_cn(n = 2, k = 4, c = 8)
  input  W: f16[k][c]
  input  I: f16[c][n]
  output O: f16[n][k]
  for n < n, k < k, c < c: O[n][k] += W[k][c] * I[c][n]
end
)",
                                     "swapped.pim");
  EXPECT_NE(refusal(swapped).find("model's order"), std::string::npos) << refusal(swapped);
}

TEST(ConvRecognition, TensorOfOtherExtentsIsRefusedNamingIt) {
  const Kernel k = parseKernel(R"(kernel big_input(n = 1, k = 4, c = 2, p = 4, r = 3)
  input  W: f16[k][c][r]
  input  I: f16[n][c][p + r]
  output O: f16[n][k][p]
  for n < n, k < k, c < c, p < p, r < r: O[n][k][p] += W[k][c][r] * I[n][c][p+r]
end
)",
                               "big.pim");
  const ConvPattern p = recognised(k);
  try {
    convLayerOf(k, p, parseShape(k, ""));
    FAIL() << "an input wider than the layer's was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("padded input"), std::string::npos) << e.what();
  }
}

TEST(PimHierarchyBackend, CarriesTheHierarchyFilesNumbers) {
  for (const auto& [backend, file] : {std::pair{"pimopt-default", "pimopt-default"},
                                      {"pimopt-small", "pimopt-small"},
                                      {"pimopt-doc", "pimopt-doc"},
                                      {"pimopt-hbm-pim", "hbm-pim"},
                                      {"pimopt-hbm2-pim", "hbm2-pim"}}) {
    const Backend& b = builtinBackend(backend);
    EXPECT_EQ(b.family, "pim-hierarchy");
    const auto want = cm::hierarchyValues(cm::builtinHierarchy(file));
    const auto got = cm::hierarchyValues(hierarchyOf(b));
    ASSERT_EQ(got.size(), want.size()) << backend;
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].value, want[i].value) << got[i].path;
    EXPECT_EQ(b.parameters.size(), want.size()) << backend;  // every number declared, once
  }
}

TEST(PimHierarchyBackend, WhatIfEditsTheHierarchyAndRoundTrips) {
  Backend b = builtinBackend("pimopt-default");
  b.setParameters({{"GlobalBuffer.entries", 512}, {"pe_array.height", 8}});
  const cm::Hierarchy h = hierarchyOf(b);
  EXPECT_EQ(h.levels[1].entries, 512);
  EXPECT_EQ(h.pe.height, 8);
  const Backend back = parseBackend(b.toJson(), "saved.json");
  EXPECT_EQ(hierarchyOf(back).levels[1].entries, 512);
  EXPECT_EQ(back.hash(), b.hash());
  EXPECT_THROW(b.setParameter("GlobalBuffer.entries", 0.5), InputError);
  EXPECT_THROW(b.setParameter("PEBuffer.instances", 4), InputError);  // fewer PE buffers than PEs
}

TEST(PimHierarchyBackend, BadFilesAreRefusedNamingTheField) {
  auto message = [](const std::string& text) {
    try {
      parseBackend(text, "bad.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string head = R"({"name": "x", "family": "pim-hierarchy", "description": "d", "sources": {},)";
  EXPECT_NE(message(head + R"("hierarchy": {}})").find("bad.json: hierarchy.file: missing"),
            std::string::npos);
  EXPECT_NE(message(head + R"("hierarchy": {"file": "nope"}})").find("not a shipped hierarchy"),
            std::string::npos);
  const std::string unknown = message(head + R"("hierarchy": {"file": "pimopt-small"}, "Cache": {"entries":
      {"value": 1, "unit": "elements", "min": 1, "max": 9, "source": "assumed: x", "description": "d"}}})");
  EXPECT_NE(unknown.find("Cache.entries: not a number of hierarchy"), std::string::npos) << unknown;
}

std::shared_ptr<const Problem> convProblem(const char* backend, const char* kernel, const char* dims) {
  Kernel k = resolveKernel(kernel, "");
  Shape s = parseShape(k, dims);
  return std::make_shared<const Problem>(builtinBackend(backend), std::move(k), std::move(s));
}

// A small layer keeps the candidate searches short.
constexpr const char* kSmallConv = "k=8,c=4,p=8,q=8";

TEST(PimHierarchyTarget, EvaluationIsTheConvMappersModel) {
  const auto p = convProblem("pimopt-small", "conv2d", kSmallConv);
  const ITarget& t = targetOf(p->backend());
  ASSERT_TRUE(t.check(*p).empty()) << t.check(*p).front();
  const HierarchyContext& c = hierarchyContext(*p);
  const auto space = t.candidates(*p);
  ASSERT_GT(space->size(), 1u);
  EvalOptions o;
  o.keepUnitStats = false;
  for (std::uint64_t id = 0; id < space->size(); ++id) {
    const Evaluation e = evaluateDraft(*p, space->candidate(id), o);
    const cm::ConvCost m = cm::evaluate(c.layer(), c.hierarchy(), c.mapping(id));
    EXPECT_EQ(e.totalCycles, m.latencyCycles) << id;
    EXPECT_EQ(e.cycles[1], m.latencyCycles) << id;
    EXPECT_DOUBLE_EQ(e.energyPj, m.energyPj) << id;
    EXPECT_NEAR(e.energy.total_pJ(), m.energyPj, 1e-6 * m.energyPj) << id;
    std::int64_t parts = 0;
    for (auto s : e.subCycles) parts += s;
    EXPECT_EQ(parts, e.cycles[1]) << id;  // the bound's parts add up to the phase
    for (int tensor = 0; tensor < cm::kTensors; ++tensor) {
      for (const auto& [key, value] : e.facts) {
        if (key == "row_acts_" + std::string(cm::kTensorNames[tensor])) {
          EXPECT_EQ(value, static_cast<double>(m.rowActs.count[tensor])) << id << key;
        }
      }
    }
  }
}

TEST(PimHierarchyTarget, CandidateListIsReproducibleAndValid) {
  const auto a = convProblem("pimopt-small", "conv2d", kSmallConv);
  const auto b = convProblem("pimopt-small", "conv2d", kSmallConv);
  const auto sa = targetOf(a->backend()).candidates(*a), sb = targetOf(b->backend()).candidates(*b);
  ASSERT_EQ(sa->size(), sb->size());
  const HierarchyContext& c = hierarchyContext(*a);
  EXPECT_EQ(c.mapping(0), cm::trivialMapping(c.layer(), c.hierarchy()));
  for (std::uint64_t id = 0; id < sa->size(); ++id) {
    EXPECT_EQ(sa->label(sa->candidate(id)), sb->label(sb->candidate(id))) << id;
    EXPECT_TRUE(cm::violations(c.layer(), c.hierarchy(), c.mapping(id)).empty()) << id;
    EXPECT_TRUE(sa->why(id).kept);
  }
  EXPECT_EQ(sa->counts().remaining, sa->size());
  EXPECT_THROW(sa->candidate(sa->size()), InputError);
}

// The searches behind the list report as they go (objective, best, bound, gap, proposals) and stop on the
// cancel flag keeping nothing; the next call makes the whole list.
TEST(PimHierarchyTarget, PreparingTheListReportsItsSearchesAndStopsOnCancel) {
  const auto p = convProblem("pimopt-default", "conv2d", "k=32,c=32,p=14,q=14");  // no other test maps it
  const ITarget& t = targetOf(p->backend());
  std::atomic<bool> cancel{false};
  std::vector<std::string> lines;
  PrepareControl control;
  control.cancel = &cancel;
  control.report = [&](const std::string& line) {
    lines.push_back(line);
    cancel = true;
  };
  EXPECT_FALSE(t.prepare(*p, control));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("mapping the layer (latency, 1 of 3): best ", 0), 0u) << lines.front();
  for (const char* part : {" cycles, bound ", ", gap ", " of 20,000 mappings evaluated"})
    EXPECT_NE(lines.front().find(part), std::string::npos) << lines.front();
  cancel = false;
  lines.clear();
  control.report = [&](const std::string& line) { lines.push_back(line); };
  EXPECT_TRUE(t.prepare(*p, control));
  EXPECT_NE(lines.back().find("(blended, 3 of 3)"), std::string::npos) << lines.back();
  EXPECT_GT(hierarchyContext(*p).mappings().size(), 1u);
}

TEST(PimHierarchyTarget, UnitStatisticsAreTheTracesRowsPerSliceAndBank) {
  const auto p = convProblem("pimopt-default", "fc", "k=64,c=128");
  const ITarget& t = targetOf(p->backend());
  const HierarchyContext& c = hierarchyContext(*p);
  const auto space = t.candidates(*p);
  for (std::uint64_t id = 0; id < std::min<std::uint64_t>(space->size(), 8); ++id) {
    const Evaluation e = evaluateDraft(*p, space->candidate(id));
    ASSERT_EQ(e.unitStats.units(), static_cast<std::size_t>(t.geometry(p->backend()).units()));
    double acts = 0;
    for (std::size_t u = 0; u < e.unitStats.units(); ++u) acts += e.unitStats.at(u, 0);
    const auto check = cm::checkAgainstTrace(c.layer(), c.hierarchy(), c.mapping(id));
    EXPECT_EQ(acts, static_cast<double>(check.traceTotal())) << id;
    EXPECT_EQ(check.traceTotal(), check.modelTotal()) << id;
    // Each unit says which tensor its bank holds and which iterations its slice covers (the tooltip).
    ASSERT_EQ(e.unitStats.notes.size(), e.unitStats.units()) << id;
    const std::size_t banks = static_cast<std::size_t>(t.geometry(p->backend()).innerCount);
    for (std::size_t u = 0; u < e.unitStats.units(); ++u) {
      if (e.unitStats.notes[u].empty()) continue;  // a slice the walk's few iterations left empty
      const char* tensor = u % banks == 0   ? "the input's bank"
                           : u % banks == 1 ? "the weight's"
                                            : "the output's";
      EXPECT_NE(e.unitStats.notes[u].find(tensor), std::string::npos) << e.unitStats.notes[u];
      EXPECT_NE(e.unitStats.notes[u].find("tile iterations"), std::string::npos) << e.unitStats.notes[u];
    }
  }
}

// What a trace costs is its steps, not its iterations (sim::traceWalkSteps): of a VGG-16-sized layer's random
// mappings, one of more than kMaxStatsTraceSteps tile iterations whose periodic loops leave few steps gets
// its heat map, the trace's rows; one of more steps gets none and the reason, naming both counts.
TEST(PimHierarchyTarget, AHeatMapIsRefusedByTheTracesStepsNotItsIterations) {
  const auto p = convProblem("pimopt-default", "conv2d", "k=256,c=256,p=56,q=56,r=3,s=3");
  const HierarchyContext& c = hierarchyContext(*p);
  const auto steps = [&](const cm::ConvMapping& m) {
    return cm::traceSteps(c.layer(), c.hierarchy(), m, kTraceSlices);
  };
  const double limit = static_cast<double>(kMaxStatsTraceSteps);
  std::optional<cm::ConvMapping> few, many;
  for (const auto& m : cm::randomValidMappings(c.layer(), c.hierarchy(), 200, 3)) {
    if (cm::traceIterations(m) <= limit) continue;
    if (steps(m) > limit) {
      if (!many) many = m;
    } else if (!few || steps(m) < steps(*few)) {
      few = m;
    }
  }
  ASSERT_TRUE(few && many);
  std::string note;
  const Evaluation e = hierarchyEvaluation(c, *few, 0, {}, &note);
  EXPECT_TRUE(note.empty()) << note;
  double acts = 0;
  for (std::size_t u = 0; u < e.unitStats.units(); ++u) acts += e.unitStats.at(u, 0);
  EXPECT_EQ(acts, static_cast<double>(cm::checkAgainstTrace(c.layer(), c.hierarchy(), *few).traceTotal()));
  const Evaluation refused = hierarchyEvaluation(c, *many, 1, {}, &note);
  EXPECT_EQ(refused.unitStats.units(), 0u);
  EXPECT_NE(note.find("steps for its"), std::string::npos) << note;
  EXPECT_NE(note.find("tile iterations, the periodic ones skipped"), std::string::npos) << note;
}

// `map --trace` refuses past kMaxTraceSteps in the same terms, before it walks: the trivial mapping of a 7 x
// 7 layer, 4.0 x 10^10 tile iterations and 1.3 x 10^9 steps (a 3 x 3 one of 7.4 x 10^9 takes 2.5 x 10^8).
TEST(PimHierarchyTarget, TheTraceRefusesPastItsStepsNamingTheCounts) {
  const auto p = convProblem("pimopt-default", "conv2d", "k=512,c=512,p=56,q=56,r=7,s=7");
  const HierarchyContext& c = hierarchyContext(*p);
  const auto m = cm::trivialMapping(c.layer(), c.hierarchy());
  ASSERT_GT(cm::traceSteps(c.layer(), c.hierarchy(), m), static_cast<double>(cm::kMaxTraceSteps));
  try {
    (void)cm::checkAgainstTrace(c.layer(), c.hierarchy(), m);
    FAIL() << "traced";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("steps for its 40,282,095,616 tile iterations"), std::string::npos) << what;
    EXPECT_NE(what.find("(at most 1,000,000,000)"), std::string::npos) << what;
  }
}

TEST(PimHierarchyTarget, VendorIsTheTrivialMappingAndEstimateIsTheModel) {
  const auto p = convProblem("pimopt-hbm-pim", "fc", "k=256,c=256");
  const Baseline v = vendorBaseline(*p);
  ASSERT_TRUE(v.available) << v.reason;
  const HierarchyContext& c = hierarchyContext(*p);
  EXPECT_EQ(v.eval.totalCycles, cm::evaluate(c.layer(), c.hierarchy(), c.mapping(0)).latencyCycles);
  EXPECT_FALSE(gpuBaseline(*p).available);
  const auto est = targetOf(p->backend()).estimator(*p, {});
  ASSERT_NE(est, nullptr);
  const Evaluation e = evaluateDraft(*p, Draft{1, {}});
  EXPECT_NEAR(est->estimate(Draft{1, {}}).totalNs, e.timeNs, 1e-3 * e.timeNs);
}

TEST(PimHierarchyTarget, RefusesKernelsThatAreNoLayerBeforeAnyWork) {
  const auto p = convProblem("pimopt-default", "red", "b=1,n=64");
  const auto reasons = targetOf(p->backend()).check(*p);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons.front().find("kernel 'red' is not a convolution or FC layer"), std::string::npos);
  try {
    requireRunnable(*p);
    FAIL() << "red ran on a conv-mapping hierarchy";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("red cannot run on pimopt-default"), std::string::npos) << e.what();
  }
  // A layer too large for the model's limits is refused with the field, not mapped.
  const auto huge = convProblem("pimopt-default", "fc", "k=2000000,c=4");
  ASSERT_FALSE(targetOf(huge->backend()).check(*huge).empty());
}

}  // namespace
}  // namespace pim
