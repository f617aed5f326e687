// SPDX-License-Identifier: Apache-2.0
// Mapping files of several sub-maps (CoMoNM section IV-C, Fig. 8b): where each sub-map lies
// (engine/mapping/sub_map_layout.cpp), every layout rule broken with its place, and their run
// (engine/workflow/sub_map_run.cpp) against the same problems run one by one, derived by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"
#include "engine/mapping/sub_map_layout.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "engine/workflow/mapping_schedule.h"
#include "engine/workflow/sub_map_run.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using pim::test::expectInputError;

const std::vector<std::string> kIJ = {"i", "j"};

// CoMoNM's Fig. 8b, as printed: 512 x 1,152 iterations of GEMV in four sub-maps.
const char* kFig8b =
    "Upmem_map: [\n"
    "    M2: {(4, 1), (8, 8), (1, 4), (16, 20)},\n"
    "    M3: {(1, 4), (2, 4), (8, 1), (12, 32)},\n"
    "    M1: {(4, 4), (5, 5), (1, 1), (16, 16)},\n"
    "    M4: {(1, 1), (5, 16), (16, 1), (4, 12)},\n"
    "]\n";

// In the file's order, dimension 1 first: M2 takes columns [0, 640) of all 512 rows; M3 the first 192 rows of
// the columns left; M1 and M4 the 320 rows below it, side by side. They run in the order of their indices.
TEST(SubMapLayout, PlacesCoMoNMsFig8bInTheFilesOrder) {
  const auto boxes = placeSubMaps(parseMappingText(kFig8b, "8b.txt"), {512, 1152}, kIJ);
  ASSERT_EQ(boxes.size(), 4u);
  const std::vector<std::size_t> order = {2, 0, 1, 3};  // M1, M2, M3, M4 by their place in the file
  const std::vector<std::vector<std::int64_t>> lo = {{192, 640}, {0, 0}, {0, 640}, {192, 960}};
  const std::vector<std::vector<std::int64_t>> extent = {{320, 320}, {512, 640}, {192, 512}, {320, 192}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(boxes[i].map, order[i]) << i;
    EXPECT_EQ(boxes[i].lo, lo[i]) << i;
    EXPECT_EQ(boxes[i].extent, extent[i]) << i;
  }
  EXPECT_EQ(boxText(boxes[0]), "[192, 512) x [640, 960)");
  std::int64_t covered = 0;
  for (const SubMapBox& b : boxes) covered += b.volume();
  EXPECT_EQ(covered, 512 * 1152);
}

TEST(SubMapLayout, EqualMapsStackAlongTheFirstDimension) {
  const auto boxes = placeSubMaps(
      parseMappingText("M_map: [ M1: {(2, 1), (64, 1)}, M1: {(2, 1), (64, 1)}, M2: {(1, 1), (256, 1)} ]",
                       "s.txt"),
      {512, 1}, kIJ);
  ASSERT_EQ(boxes.size(), 3u);
  EXPECT_EQ(boxes[0].lo, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(boxes[1].lo, (std::vector<std::int64_t>{128, 0}));  // the second M1, after the first
  EXPECT_EQ(boxes[2].lo, (std::vector<std::int64_t>{256, 0}));
}

TEST(SubMapLayout, EveryRuleBrokenIsRefusedWithItsPlace) {
  auto place = [](const std::string& text, std::vector<std::int64_t> extents) {
    return [text, extents] { placeSubMaps(parseMappingText(text, "m.txt"), extents, kIJ); };
  };
  // Fig. 8c's five equal maps over the same space: one too many.
  const std::string five =
      "Hbmpim_map: [\n"
      " M1: {(4, 4), (2, 8), (8, 2), (4, 9)},\n M3: {(4, 4), (2, 8), (8, 2), (4, 9)},\n"
      " M4: {(4, 4), (2, 8), (8, 2), (4, 9)},\n M2: {(4, 4), (2, 8), (8, 2), (4, 9)},\n"
      " M2: {(4, 4), (2, 8), (8, 2), (4, 9)},\n]";
  expectInputError(place(five, {512, 1152}),
                   {"m.txt:6:2", "M2 (256 x 576) fits nowhere in what M1, M3, M4, M2 leave", "overlap"});
  const std::string three = five.substr(0, five.find(" M2")) + "]";
  expectInputError(place(three, {512, 1152}), {"iteration (256, 576)", "in no sub-map"});
  expectInputError(place("A_map: [ M1: {(4, 1), (256, 1)} ]", {512, 1}),
                   {"m.txt:1:10", "covers 1024 iterations along i, whose extent is 512"});
  expectInputError(place("A_map: [ M1: {(4, 1, 1), (128, 1, 1)} ]", {512, 1}),
                   {"m.txt:1:15", "3 entries", "2 dimensions (i, j)"});
  std::string many = "A_map: [";
  for (int i = 1; i <= 17; ++i) many += " M" + std::to_string(i) + ": {(1, 1), (1, 1)},";
  expectInputError(place(many + "]", {17, 1}), {"M17 is sub-map 17", "at most 16"});
  // 21 dimensions of extent 2: after one unit box, 2^21 corners to try for the next, refused.
  std::string ones = "(1";
  for (int j = 1; j < 21; ++j) ones += ", 1";
  ones += ")";
  const std::vector<std::string> names(21, "d");
  expectInputError(
      [&] {
        placeSubMaps(parseMappingText("A_map: [ M1: {" + ones + "}, M2: {" + ones + "} ]", "m.txt"),
                     std::vector<std::int64_t>(21, 2), names);
      },
      {"M2 cut the space along so many dimensions", "1048576 corners"});
}

std::unique_ptr<Problem> problem(const std::string& backend, const std::string& kernel,
                                 const std::string& dims, std::optional<DType> t = std::nullopt) {
  Kernel k = KernelLibrary::builtin().get(kernel);
  if (t) k = retyped(std::move(k), *t);
  return std::make_unique<Problem>(builtinBackends().get(backend), k, parseShape(k, dims));
}

EvalOptions options() {
  EvalOptions o;
  o.keepUnitStats = true;
  return o;
}

MappingRun runText(const std::string& text, const Problem& p) {
  return runSubMaps(parseMappingText(text, "m.txt"), p, options());
}

// Two sub-maps over the rows write distinct outputs: the run is the two halves, each the GEMV of its size run
// on its own with the same map, one after the other, and nothing to merge.
TEST(SubMapRun, RowHalvesCostTwoHalfSizeGemvs) {
  const auto full = problem("hbm-pim", "gemv", "b=1,out=512,in=1152");
  const MappingRun run = runText(
      "Hbmpim_map: [ M1: {(1, 4, 1), (1, 8, 1), (1, 1, 1), (1, 8, 1152)},\n"
      "              M2: {(1, 4, 1), (1, 8, 1), (1, 1, 1), (1, 8, 1152)} ]",
      *full);
  ASSERT_EQ(run.subMaps.size(), 2u);
  EXPECT_EQ(run.subMaps[1].box.lo, (std::vector<std::int64_t>{0, 256, 0}));
  EXPECT_EQ(run.mergedPartials, 0);
  const auto half = problem("hbm-pim", "gemv", "b=1,out=256,in=1152");
  const MappingSpec one =
      parseMappingText("Hbmpim_map: [ M1: {(1, 4, 1), (1, 8, 1), (1, 1, 1), (1, 8, 1152)} ]", "one.txt");
  const Evaluation alone = evaluateDraft(*half, mappedSchedule(one, *half).draft, options());
  EXPECT_EQ(run.total.totalCycles, 2 * alone.totalCycles);
  for (int ph = 0; ph < 3; ++ph) EXPECT_EQ(run.total.cycles[ph], 2 * alone.cycles[ph]) << ph;
  EXPECT_DOUBLE_EQ(run.total.energyPj, 2 * alone.energyPj);
  EXPECT_EQ(run.total.commands, 2 * alone.commands);
  ASSERT_EQ(run.total.unitStats.values.size(), alone.unitStats.values.size());
  for (std::size_t i = 0; i < alone.unitStats.values.size(); ++i)
    EXPECT_DOUBLE_EQ(run.total.unitStats.values[i], 2 * alone.unitStats.values[i]) << i;
}

// Two sub-maps over the columns of a GEMV both write all 512 outputs: the host adds 512 partial results at
// pim.hostMergeGops, counted in the output rearrangement and its host-merge sub-phase. Each sub-map runs with
// its own tasklets; the launches add, the tasklets reported are the most any sub-map uses.
TEST(SubMapRun, ColumnHalvesLeavePartialsTheHostAdds) {
  const auto full = problem("upmem", "gemv", "b=1,out=512,in=1152", DType::I32);
  const MappingRun run = runText(
      "Upmem_map: [ M1: {(1, 2, 1), (1, 64, 1), (1, 1, 4), (1, 4, 144)},\n"
      "             M2: {(1, 2, 1), (1, 64, 1), (1, 1, 8), (1, 4, 72)} ]",
      *full);
  ASSERT_EQ(run.subMaps.size(), 2u);
  EXPECT_EQ(run.subMaps[1].box.lo, (std::vector<std::int64_t>{0, 0, 576}));
  EXPECT_EQ(run.subMaps[0].problem->backend().param("pim.tasklets")->value, 4);
  EXPECT_EQ(run.subMaps[1].problem->backend().param("pim.tasklets")->value, 8);
  EXPECT_EQ(run.mergedPartials, 512);
  const double gops = full->backend().param("pim.hostMergeGops")->value;
  const Evaluation& a = run.subMaps[0].evaluation;
  const Evaluation& b = run.subMaps[1].evaluation;
  EXPECT_EQ(run.mergeCycles, std::llround(512 / gops / a.tCKns));
  EXPECT_GT(run.mergeCycles, 0);
  EXPECT_EQ(run.total.totalCycles, a.totalCycles + b.totalCycles + run.mergeCycles);
  EXPECT_EQ(run.total.cycles[2], a.cycles[2] + b.cycles[2] + run.mergeCycles);
  const auto& subs = targetOf(full->backend()).subPhases();
  ASSERT_EQ(subs.back().key, "host");
  EXPECT_EQ(run.total.subCycles.back(), a.subCycles.back() + b.subCycles.back() + run.mergeCycles);
  std::map<std::string, double> facts(run.total.facts.begin(), run.total.facts.end());
  EXPECT_EQ(facts["tasklets"], 8);
  EXPECT_EQ(facts["launches"], 2);
  EXPECT_EQ(facts["dpus"], 128);
}

TEST(SubMapRun, RefusesWhatItCannotRun) {
  // A reduction split across sub-maps on a family with no host merge rate.
  const auto hbm = problem("hbm-pim", "gemv", "b=1,out=512,in=1152");
  expectInputError(
      [&] {
        runText(
            "Hbmpim_map: [ M1: {(1, 4, 1), (1, 8, 1), (1, 1, 1), (1, 16, 576)},\n"
            "              M2: {(1, 4, 1), (1, 8, 1), (1, 1, 1), (1, 16, 576)} ]",
            *hbm);
      },
      {"M1, M2 leave 512 partial results", "pim.hostMergeGops"});
  // A loop whose range is not [0, d) of one dimension cannot be cut into a smaller problem.
  const Kernel shifted = parseKernel(
      "kernel shifted(n = 1025)\n  input x: f16[n]\n  output y: f16[n]\n  for i in [1, n): y[i] = "
      "x[i]\nend\n",
      "shifted.pim");
  const Problem p(builtinBackends().get("hbm-pim"), shifted, parseShape(shifted, "n=1025"));
  expectInputError(
      [&] { runText("Hbmpim_map: [ M1: {(4), (8), (1), (11)}, M2: {(4), (8), (1), (21)} ]", p); },
      {"m.txt:1:15", "M1 cuts loop i", "not [0, d)"});
  // A sub-map's own settings are checked as a whole file's are.
  const auto up = problem("upmem", "gemv", "b=1,out=512,in=1152", DType::I32);
  expectInputError(
      [&] {
        runText(
            "Upmem_map: [ M1: {(1, 2, 1), (1, 64, 1), (1, 1, 32), (1, 4, 18)},\n"
            "             M2: {(1, 2, 1), (1, 64, 1), (1, 1, 8), (1, 4, 72)} ]",
            *up);
      },
      {"m.txt:1:42", "32 is outside pim.tasklets"});
}

}  // namespace
