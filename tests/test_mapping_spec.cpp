// SPDX-License-Identifier: Apache-2.0
// CoMoNM's mapping specification (engine/mapping/mapping_spec.cpp) and its conversion to a draft
// (engine/workflow/mapping_schedule.cpp): the paper's own examples (Fig. 8), every rule broken with its
// place, and the drafts they give, derived by hand.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "engine/codegen/upmem_codegen.h"
#include "engine/common/error.h"
#include "engine/mapping/mapping_spec.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "engine/workflow/mapping_schedule.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using pim::test::expectInputError;

std::unique_ptr<Problem> problem(const std::string& backend, const std::string& kernel,
                                 const std::string& dims, std::optional<DType> t = std::nullopt,
                                 const Backend* edited = nullptr) {
  Kernel k = KernelLibrary::builtin().get(kernel);
  if (t) k = retyped(std::move(k), *t);
  const Backend& b = edited ? *edited : builtinBackends().get(backend);
  return std::make_unique<Problem>(b, k, parseShape(k, dims));
}

// CoMoNM's Fig. 8b, read as written (a comment and a trailing comma added): four sub-maps in their order.
TEST(MappingSpec, ReadsCoMoNMsNotation) {
  const MappingSpec s = parseMappingText(
      "# GEMV, CoMoNM Fig. 8b\n"
      "Upmem_map: [\n"
      "    M2: {(4, 1), (8, 8), (1, 4), (16, 20)},\n"
      "    M3: {(1, 4), (2, 4), (8, 1), (12, 32)},\n"
      "    M1: {(4, 4), (5, 5), (1, 1), (16, 16)},\n"
      "    M4: {(1, 1), (5, 16), (16, 1), (4, 12)},\n"
      "]\n",
      "fig8b.txt");
  EXPECT_EQ(s.target, "Upmem");
  ASSERT_EQ(s.maps.size(), 4u);
  EXPECT_EQ(s.maps[1].name, "M3");
  EXPECT_EQ(s.maps[1].index, 3);
  ASSERT_EQ(s.maps[1].tuples.size(), 4u);
  EXPECT_EQ(s.maps[1].tuples[1].entries, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(s.maps[1].at.str(), "fig8b.txt:4:5");
  EXPECT_EQ(s.maps[1].tuples[2].at.str(), "fig8b.txt:4:26");
}

TEST(MappingSpec, JsonFormIsTheSameMap) {
  const MappingSpec t = parseMappingText("Upmem_map: [ M1: {(2, 9), (64, 1), (2, 4), (2, 32)} ]", "a.txt");
  const MappingSpec j = parseMappingJson(
      R"({"target": "Upmem", "maps": [{"name": "M1", "levels": [[2, 9], [64, 1], [2, 4], [2, 32]]}],
          "block_bytes": 256})",
      "a.json");
  ASSERT_EQ(j.maps.size(), 1u);
  EXPECT_EQ(j.target, t.target);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(j.maps[0].tuples[i].entries, t.maps[0].tuples[i].entries);
  EXPECT_EQ(j.blockBytes, 256);
  EXPECT_FALSE(t.blockBytes);
}

TEST(MappingSpec, MalformedTextNamesLineAndColumn) {
  auto text = [](const std::string& s) { return [s] { parseMappingText(s, "m.txt"); }; };
  expectInputError(text("Upmem: [ M1: {(1)} ]"), {"m.txt:1:1", "_map"});
  expectInputError(text("Upmem_map: [ M1: {(1, 2)\n  (3, 4)} ]"), {"m.txt:2:3", "',' or '}'"});
  expectInputError(text("Upmem_map: [ M1: {(1, 0)} ]"), {"m.txt:1:23", ">= 1", "'0'"});
  expectInputError(text("Upmem_map: [ M1: {(1, -2)} ]"), {"m.txt:1:23", "whole number"});
  expectInputError(text("Upmem_map: [ X1: {(1)} ]"), {"m.txt:1:14", "M<n>"});
  expectInputError(text("Upmem_map: [ M1: {(1, 2), (3)} ]"),
                   {"m.txt:1:27", "as many entries as its first (2)"});
  expectInputError(text("Upmem_map: [ M1: {(99999999999999999999)} ]"), {"m.txt:1:20", "below 2^63"});
  expectInputError(text("Upmem_map: [ M1: {(1)} ] extra"), {"m.txt:1:26", "end of the file"});
  expectInputError(text("Upmem_map: [ M1: {(1)}"), {"m.txt:1:23", "the end of the file"});
}

TEST(MappingSpec, MalformedJsonNamesTheKey) {
  auto json = [](const std::string& s) { return [s] { parseMappingJson(s, "m.json"); }; };
  expectInputError(json(R"({"maps": [{"levels": [[1, 0]]}]})"), {"m.json: maps[0].levels[0][1]", ">= 1"});
  expectInputError(json(R"({"maps": [{"levels": [[1, 2], [3]]}]})"),
                   {"m.json: maps[0].levels[1]", "entries"});
  expectInputError(json(R"({"maps": [], "x": 1})"), {"m.json: x", "unknown key"});
  expectInputError(json(R"({"maps": []})"), {"m.json: maps", "non-empty"});
  expectInputError(json(R"({"maps": [{"name": "M0", "levels": [[1]]}]})"), {"maps[0].name", "M<n>"});
  expectInputError(json(R"({"maps": [{"levels": [[1]]}], "block_bytes": 1.5})"), {"block_bytes"});
  expectInputError(json(R"({"maps": [{"levels": [[1]], "levels": [[2]]}]})"), {"duplicate key"});
  expectInputError(json(R"({"maps": [{"levels": [[1]]}], "choices": [1]})"), {"m.json: choices", "object"});
  expectInputError(json(R"({"maps": [{"levels": [[1]]}], "choices": {"code": 2.5}})"),
                   {"m.json: choices.code", "2.5"});
}

// The kernel-level choices beside the map, in the file's order, each as written: a label or a number.
TEST(MappingSpec, JsonChoicesKeepTheirOrderAndPlaces) {
  const MappingSpec m = parseMappingJson(
      R"({"maps": [{"levels": [[1]]}], "choices": {"operand_caching": "kept in WRAM", "split": 2}})",
      "c.json");
  ASSERT_EQ(m.choices.size(), 2u);
  EXPECT_EQ(m.choices[0].key, "operand_caching");
  EXPECT_EQ(m.choices[0].text, "kept in WRAM");
  EXPECT_FALSE(m.choices[0].value);
  EXPECT_EQ(m.choices[0].valueText(), "\"kept in WRAM\"");
  EXPECT_EQ(m.choices[1].value, 2);
  EXPECT_EQ(m.choices[1].at.str(), "c.json: choices.split");
}

// CoMoNM's single-DPU experiments: 1 DPU, T tasklets, each tasklet's extent the rest. VA has loops b and i;
// (1, 4096) on one DPU with 8 tasklets of 512 elements: the draft gives every part one group and one core,
// and the mapping sets pim.tasklets to 8.
TEST(MappingSchedule, SingleDpuExperimentIsOneDpuWithItsTasklets) {
  const MappingSpec m =
      parseMappingText("Upmem_map: [ M1: {(1, 1), (1, 1), (1, 8), (1, 512)} ]", "single.txt");
  const Backend& shipped = builtinBackends().get("upmem");
  const auto settings = mappingSettings(m, shipped);
  ASSERT_EQ(settings.size(), 1u);
  EXPECT_EQ(settings[0], (std::pair<std::string, double>{"pim.tasklets", 8}));
  Backend b = shipped;
  b.setParameter("pim.tasklets", 8);
  const auto p = problem("upmem", "va", "b=1,n=4096", DType::I32, &b);
  const MappedSchedule s = mappedSchedule(m, *p);
  for (const PartChoice& c : s.draft.parts) EXPECT_EQ(c.groups * c.cores, 1);
  const Evaluation e = evaluateDraft(*p, s.draft);
  EXPECT_EQ(e.unitsUsed, 1);
  const auto f =
      std::find_if(e.facts.begin(), e.facts.end(), [](const auto& x) { return x.first == "tasklets"; });
  ASSERT_NE(f, e.facts.end());
  EXPECT_EQ(f->second, 8);
}

// GEMV b=1, out=512, in=1152 (CoMoNM Fig. 8a's space with the batch loop first): ranks (1,2,9) and DPUs
// (1,64,1) give W's rows 2 groups x 64 cores and its columns 9 groups: 18 ranks, 1,152 DPUs.
TEST(MappingSchedule, Fig8aBecomesRanksAndDpusPerDimensionSet) {
  const auto p = problem("upmem", "gemv", "b=1,out=512,in=1152", DType::I32);
  const MappedSchedule s = mappedSchedule(
      parseMappingText("Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 8), (1, 2, 16)} ]", "8a.txt"), *p);
  const auto& sets = p->space().sets().sets;
  std::map<std::string, std::pair<int, int>> byLoop;  // loop split -> (groups, cores)
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const PartChoice& c = s.draft.parts[i];
    const int var = sets[i].candidates[static_cast<std::size_t>(c.rep)].var;
    if (c.groups * c.cores > 1)
      byLoop[p->kernel().loops[static_cast<std::size_t>(var)].var] = {c.groups, c.cores};
  }
  EXPECT_EQ(byLoop, (std::map<std::string, std::pair<int, int>>{{"o", {2, 64}}, {"i", {9, 1}}}));
}

TEST(MappingSchedule, BrokenRulesAreRefusedWithTheirPlace) {
  const auto p = problem("upmem", "gemv", "b=1,out=512,in=1152", DType::I32);
  auto conv = [&](const std::string& text) {
    return [&p, text] { mappedSchedule(parseMappingText(text, "m.txt"), *p); };
  };
  // A product that misses the extent, naming the dimension and both numbers.
  expectInputError(conv("Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 4), (1, 2, 16)} ]"),
                   {"m.txt:1:14", "dimension 3 (i)", "9 x 1 x 4 x 16 = 576", "extent is 1152"});
  expectInputError(conv("Upmem_map: [ M1: {(1, 2), (1, 64), (1, 2), (1, 2)} ]"),
                   {"2 entries", "3 dimensions (b, o, i)"});
  expectInputError(conv("Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 4, 128)} ]"), {"3 tuples", "has 4"});
  // More units than a level has: 128 DPUs per rank, 2,560 / 64 = 40 ranks.
  expectInputError(conv("Upmem_map: [ M1: {(1, 1, 9), (1, 128, 1), (1, 4, 4), (1, 1, 32)} ]"),
                   {"m.txt:1:30", "level 2 (DPUs per rank)", "128 units", "64 DPUs per rank"});
  expectInputError(conv("Upmem_map: [ M1: {(1, 4, 18), (1, 1, 1), (1, 4, 2), (1, 32, 32)} ]"),
                   {"level 1 (ranks)", "72 units", "the 40 ranks"});
  expectInputError(conv("Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 4), (1, 2, 32)}, "
                        "M2: {(1, 2, 9), (1, 64, 1), (1, 2, 4), (1, 2, 32)} ]"),
                   {"a second map (M2)", "simulate --schedule mapping:FILE"});
  expectInputError(conv("Hbmpim_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 4), (1, 2, 32)} ]"),
                   {"a mapping for 'Hbmpim', not for backend upmem"});
  // Tasklets beyond a DPU's 24, refused from the parameter's declared range.
  expectInputError(
      [] {
        mappingSettings(
            parseMappingText("Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 16), (1, 2, 8)} ]", "m.txt"),
            builtinBackends().get("upmem"));
      },
      {"m.txt:1:42", "level 3 (tasklets per DPU)", "32", "1 to 24"});
}

// On a DRAM-PIM backend the levels are PIM groups and cores; the third (lanes) is the code generator's.
TEST(MappingSchedule, HbmPimMappingBecomesTheEquivalentDraft) {
  const auto p = problem("hbm-pim", "gemv", "b=1,out=512,in=1152");
  const MappingSpec m =
      parseMappingText("Hbmpim_map: [ M1: {(1, 4, 1), (1, 8, 1), (1, 1, 16), (1, 16, 72)} ]", "h.txt");
  EXPECT_TRUE(mappingSettings(m, p->backend()).empty());
  const MappedSchedule s = mappedSchedule(m, *p);
  int groups = 1, cores = 1;
  for (const PartChoice& c : s.draft.parts) groups *= c.groups, cores *= c.cores;
  EXPECT_EQ(groups, 4);
  EXPECT_EQ(cores, 8);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("lanes"), std::string::npos);
  expectInputError(
      [&] {
        mappingSettings(parseMappingJson(R"({"maps": [{"levels": [[1,4,1],[1,8,1],[1,1,16],[1,16,72]]}],
                                                        "block_bytes": 64})",
                                         "h.json"),
                        p->backend());
      },
      {"h.json: block_bytes", "no WRAM block"});
}

// A mapping's "choices" make it a candidate of the target's kernel-level choices: the same draft (the id's
// draft part), the named axes at the named values and every other at the backend's own (index 0). GEMV's
// outputs share x: kept in WRAM, a DPU reads it once per tasklet instead of once per output, so it moves
// fewer DMA bytes (dpuStatistics' column 3).
TEST(MappingSchedule, ChoicesMakeTheCandidate) {
  const auto p = problem("upmem", "gemv", "b=1,out=65536,in=256", DType::I32);
  const std::string map = R"({"maps": [{"levels": [[1,4,1],[1,64,1],[1,16,1],[1,16,256]]}])";
  auto mapped = [&](const std::string& choices) {
    return mappedSchedule(
        parseMappingJson(map + (choices.empty() ? "" : ", \"choices\": " + choices) + "}", "g.json"), *p);
  };
  const MappedSchedule plain = mapped("");
  const MappedSchedule kept =
      mapped(R"({"operand_caching": "kept in WRAM", "tasklet_split": "tasklets take outputs"})");
  const CandidateIds ids = targetOf(p->backend()).candidateIds(*p);
  EXPECT_EQ(ids.draftOf(kept.draft.id), plain.draft.id);
  EXPECT_EQ(ids.value(kept.draft.id, "operand_caching", -1), 1);
  EXPECT_EQ(ids.value(kept.draft.id, "tasklet_split", -1), static_cast<std::int64_t>(TaskletSplit::Outputs));
  const std::vector<int> choice = ids.choiceOf(kept.draft.id);
  for (std::size_t a = 0; a < choice.size(); ++a) {
    const std::string& key = ids.axes()[a].key;
    if (key != "operand_caching" && key != "tasklet_split") {
      EXPECT_EQ(choice[a], 0) << key;
    }
  }
  EXPECT_EQ(kept.notes.back(), "tasklet_split: tasklets take outputs");
  auto dmaBytes = [&](const Draft& d) {
    const UnitStatistics& s = evaluateDraft(*p, d).unitStats;
    double bytes = 0;
    for (std::size_t u = 0; u < s.units(); ++u) bytes += s.at(u, 3);
    return bytes;
  };
  EXPECT_LT(dmaBytes(kept.draft), dmaBytes(plain.draft));
  // A numeric axis takes its number; what the map says elsewhere, a key no axis has and a value the axis
  // does not take are refused with their place and what would do.
  expectInputError([&] { mapped(R"({"operand_caching": "kept"})"); },
                   {"g.json: choices.operand_caching", "\"kept\" is not a value", "\"kept in WRAM\""});
  expectInputError([&] { mapped(R"({"operand_caching": 1})"); }, {"1 is not a value", "streamed per output"});
  expectInputError([&] { mapped(R"({"caching": "kept in WRAM"})"); },
                   {"g.json: choices.caching", "gemv on upmem has no choice caching", "operand_caching"});
  expectInputError([&] { mapped(R"({"tasklets": 8})"); }, {"choices.tasklets", "level 3"});
  expectInputError([&] { mapped(R"({"tile_bytes": 256})"); }, {"choices.tile_bytes", "block_bytes"});
  const auto h = problem("hbm-pim", "red", "b=1,n=1048576");
  expectInputError(
      [&] {
        mappedSchedule(parseMappingJson(R"({"maps": [{"levels": [[1,16],[1,64],[1,1],[1,1024]]}],
                                            "choices": {"code": "generated code"}})",
                                        "h.json"),
                       *h);
      },
      {"h.json: choices.code", "no kernel-level choices"});
}

// Level 3 says where the tasklets go. GEMV 65,536 x 256 on 256 DPUs holds 256 rows per DPU: 16 tasklets on
// the rows (o) are what the code generator does by itself; on the columns (i) they split each row's
// reduction, which it does only when told (the "tasklets split reductions" choice, added with a note), so
// each DPU adds partial sums; a file choice that says otherwise is refused with both places.
TEST(MappingSchedule, LevelThreeLaysTheTasklets) {
  const auto p = problem("upmem", "gemv", "b=1,out=65536,in=256", DType::I32);
  const CandidateIds ids = targetOf(p->backend()).candidateIds(*p);
  auto mapped = [&](const std::string& third, const std::string& leaf, const std::string& choices = "") {
    return mappedSchedule(
        parseMappingJson(R"({"maps": [{"levels": [[1,4,1],[1,64,1],)" + third + "," + leaf + "]}]" +
                             (choices.empty() ? "" : ", \"choices\": " + choices) + "}",
                         "l.json"),
        *p);
  };
  const MappedSchedule rows = mapped("[1,16,1]", "[1,16,256]");
  const MappedSchedule columns = mapped("[1,1,16]", "[1,256,16]");
  EXPECT_EQ(rows.draft.id, ids.draftOf(rows.draft.id));  // the backend's own split: no choice
  EXPECT_EQ(ids.draftOf(columns.draft.id), rows.draft.id);
  EXPECT_EQ(ids.value(columns.draft.id, "tasklet_split", -1),
            static_cast<std::int64_t>(TaskletSplit::Reduction));
  EXPECT_EQ(columns.notes.back(), "tasklet_split: tasklets split reductions");
  EXPECT_NE(rows.notes.front().find("16 tasklets; they take outputs"), std::string::npos)
      << rows.notes.front();
  EXPECT_NE(evaluateDraft(*p, columns.draft).totalCycles, evaluateDraft(*p, rows.draft).totalCycles);
  // The notation writes a candidate's tasklets where its split lays them, and reads back to it.
  const MappingText text = mappingTextOf(*p, columns.draft, 16);
  EXPECT_EQ(text.text, "Upmem_map: [ M1: {(1, 4, 1), (1, 64, 1), (1, 1, 16), (1, 256, 16)} ]");
  EXPECT_EQ(mappedSchedule(parseMappingText(text.text, "back.txt"), *p).draft, columns.draft);
  expectInputError([&] { mapped("[1,1,16]", "[1,256,16]", R"({"tasklet_split": "tasklets take outputs"})"); },
                   {"l.json: choices.tasklet_split", "contradicts level 3 at l.json: maps[0].levels[2]",
                    "split the reduction", "\"tasklets split reductions\""});
  // Over both kinds of loop the generator has no such grid: a note, the backend's own split.
  const MappedSchedule both = mapped("[1,4,4]", "[1,64,64]");
  EXPECT_EQ(both.draft.id, rows.draft.id);
  EXPECT_NE(both.notes.front().find("no two-dimensional tasklet grid"), std::string::npos)
      << both.notes.front();
}

// A candidate whose kernel-level choices the notation cannot say (a tile, operand caching) gets the JSON form
// too, which reads back to a candidate running the same program: the same time to the cycle. The backend's
// own choices need no JSON.
TEST(MappingSchedule, ChoicesTheNotationCannotSayGoToTheJsonForm) {
  const auto p = problem("upmem", "gemv", "b=1,out=65536,in=256", DType::I32);
  const CandidateIds ids = targetOf(p->backend()).candidateIds(*p);
  const MappedSchedule plain = mappedSchedule(
      parseMappingText("Upmem_map: [ M1: {(1, 4, 1), (1, 64, 1), (1, 16, 1), (1, 16, 256)} ]", "p.txt"), *p);
  EXPECT_TRUE(mappingTextOf(*p, plain.draft, 16).json.empty());
  std::vector<int> choice(ids.axes().size(), 0);
  for (std::size_t a = 0; a < ids.axes().size(); ++a) {
    const ChoiceAxis& axis = ids.axes()[a];
    for (std::size_t v = 0; v < axis.values.size(); ++v)
      if ((axis.key == "tile_bytes" && axis.values[v] == 256) ||
          (axis.key == "operand_caching" && axis.texts[v] == "kept in WRAM"))
        choice[a] = static_cast<int>(v);
  }
  const Draft candidate = candidateOf(*p, ids.id(plain.draft.id, choice));
  const MappingText text = mappingTextOf(*p, candidate, 16);
  EXPECT_EQ(text.json,
            R"({"block_bytes":256,"choices":{"operand_caching":"kept in WRAM"},"maps":[{"levels":[[1,4,1],)"
            R"([1,64,1],[1,16,1],[1,16,256]],"name":"M1"}],"target":"Upmem"})");
  const MappingSpec back = parseMappingJson(text.json, "back.json");
  Backend edited = p->backend();
  edited.setParameters(mappingSettings(back, edited));
  const Problem again(edited, p->kernel(), p->shape());
  EXPECT_EQ(evaluateDraft(again, mappedSchedule(back, again).draft).totalCycles,
            evaluateDraft(*p, candidate).totalCycles);
}

// A draft written in CoMoNM's notation reads back to the same draft and tasklets; a split with unequal tiles
// has no such text and says why.
TEST(MappingSchedule, DraftsRoundTripThroughTheNotation) {
  const auto gemv = problem("upmem", "gemv", "b=1,out=512,in=1152", DType::I32);
  const MappingSpec fig8a =
      parseMappingText("Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 4), (1, 2, 32)} ]", "8a.txt");
  const Draft d = mappedSchedule(fig8a, *gemv).draft;
  const MappingText text = mappingTextOf(*gemv, d, 8);
  ASSERT_FALSE(text.text.empty()) << text.reason;
  // 512 / (2 x 64) = 4 rows and 1,152 / 9 = 128 columns per DPU; 8 tasklets as 2 x 2 x 2 on the larger share.
  EXPECT_EQ(text.text, "Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 1, 8), (1, 4, 16)} ]");
  const MappingSpec back = parseMappingText(text.text, "back.txt");
  EXPECT_EQ(mappedSchedule(back, *gemv).draft, d);
  EXPECT_EQ(mappingSettings(back, gemv->backend()).front().second, 8);

  const auto hbm = problem("hbm-pim", "gemv", "b=1,out=512,in=1152");
  const Draft h =
      mappedSchedule(
          parseMappingText("Hbmpim_map: [ M1: {(1, 4, 1), (1, 8, 1), (1, 1, 16), (1, 16, 72)} ]", "h.txt"),
          *hbm)
          .draft;
  const MappingText ht = mappingTextOf(*hbm, h, 1);
  EXPECT_EQ(ht.text, "Hbmpim_map: [ M1: {(1, 4, 1), (1, 8, 1), (1, 1, 1), (1, 16, 1152)} ]");
  EXPECT_EQ(mappedSchedule(parseMappingText(ht.text, "h2.txt"), *hbm).draft, h);

  const auto va = problem("upmem", "va", "b=1,n=1000", DType::I32);
  std::vector<PartChoice> parts(static_cast<std::size_t>(va->space().partCount()));
  parts.back() = {1, 3, 0};  // 1,000 over 3 DPUs: 334, 334, 332
  const MappingText uneven = mappingTextOf(*va, va->space().draft(va->space().idOf(parts)), 1);
  EXPECT_TRUE(uneven.text.empty());
  EXPECT_NE(uneven.reason.find("exact divisions"), std::string::npos) << uneven.reason;
}

}  // namespace
