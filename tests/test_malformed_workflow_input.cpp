// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22), part 2: schedule files, suites and model metadata
// (tests/test_malformed_input.cpp has the introduction).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/predict/predictor.h"
#include "engine/search/schedule_file.h"
#include "engine/workflow/training.h"
#include "tests/malformed_input.h"

namespace pim {
namespace {

using namespace pim::test;

// ---------------------------------------------------------------------------------------------------------
// Schedule files

/// A valid schedule file (the golden export of red on gddr6-aim), as text.
std::string exportedSchedule(const TempDir&) {
  return readBytes(std::string(PIMSCOPE_TEST_DATA_DIR) + "/golden/schedule_gddr6-aim_red.json");
}

void expectScheduleRefused(const TempDir& dir, const std::string& text,
                           std::initializer_list<std::string> n) {
  writeBytes(dir.file("bad.json"), text);
  expectError([&] { importSchedule(dir.file("bad.json")); }, n);
}

TEST(MalformedSchedule, DirectorySaysSo) {
  const TempDir dir;
  expectError([&] { importSchedule(dir.path()); }, {dir.path() + ": is a directory, not a schedule file"});
}

TEST(MalformedSchedule, DevZeroIsRefused) {
  expectError([] { importSchedule("/dev/zero"); }, {"/dev/zero: is a device, not a schedule file"});
}

TEST(MalformedSchedule, FifoIsRefused) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "s.json");
  expectError([&] { importSchedule(fifo); }, {"is a FIFO (named pipe), not a schedule file"});
}

TEST(MalformedSchedule, MillionNestedArraysAreRefused) {
  const TempDir dir;
  expectScheduleRefused(dir, repeat("[", 1000000) + repeat("]", 1000000),
                        {"bad.json: line 1, column 257: invalid JSON: nested deeper than 256 levels"});
}

TEST(MalformedSchedule, NestedArraysInDraftPartsAreRefused) {
  const TempDir dir;
  std::string text = exportedSchedule(dir);
  const std::size_t at = text.find("\"parts\": [") + 10;
  text.insert(at, repeat("[", 100000) + repeat("]", 100000) + ",");
  expectScheduleRefused(dir, text, {"bad.json: line ", "nested deeper than 256 levels"});
}

TEST(MalformedSchedule, NumberOverflowIsNamed) {
  const TempDir dir;
  std::string text = exportedSchedule(dir);
  const std::string version = "\"version\": " + std::to_string(kScheduleVersion);
  text.replace(text.find(version), version.size(), "\"version\": 1e400");
  expectScheduleRefused(dir, text, {"bad.json: line ", "number overflow parsing '1e400'"});
}

TEST(MalformedSchedule, DuplicateKeyIsRefused) {
  const TempDir dir;
  std::string text = exportedSchedule(dir);
  text.insert(text.find('{') + 1, "\n  \"shape\": \"b=1,n=8\",");
  expectScheduleRefused(dir, text, {"bad.json: shape: duplicate key"});
}

TEST(MalformedSchedule, DuplicateKeyInEmbeddedBackendIsRefused) {
  const TempDir dir;
  std::string text = exportedSchedule(dir);
  const std::size_t at = text.find("\"parameters\": {") + 15;
  text.insert(at, "\n\"name\": \"x\",");
  expectScheduleRefused(dir, text, {"bad.json: backend.parameters.name: duplicate key"});
}

TEST(MalformedSchedule, TruncatedStaysClear) {
  const TempDir dir;
  const std::string text = exportedSchedule(dir);
  expectScheduleRefused(dir, text.substr(0, text.size() / 2), {"bad.json: line ", "invalid JSON"});
}

TEST(MalformedSchedule, NotAScheduleStaysClear) {
  const TempDir dir;
  expectScheduleRefused(dir, R"({"format": "other", "version": 1})",
                        {"bad.json: format:", "not a PIMScope schedule file"});
}

// ---------------------------------------------------------------------------------------------------------
// Suites

void expectSuiteRefused(const TempDir& dir, const std::string& text, std::initializer_list<std::string> n) {
  writeBytes(dir.file("suite.json"), text);
  expectError([&] { loadSuite(dir.file("suite.json")); }, n);
}

TEST(MalformedSuite, DirectorySaysSo) {
  const TempDir dir;
  expectError([&] { loadSuite(dir.path()); }, {dir.path() + ": is a directory, not a suite file"});
}

TEST(MalformedSuite, MissingFileIsNamed) {
  expectError([] { loadSuite("/nonexistent/s.json"); }, {"/nonexistent/s.json: cannot open suite file"});
}

TEST(MalformedSuite, TopLevelArrayIsRefused) {
  const TempDir dir;
  expectSuiteRefused(dir, "[1, 2]", {"suite.json: expected a JSON object at top level, got array"});
}

TEST(MalformedSuite, NameOfWrongTypeIsRefused) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"name": 3, "kernels": {}})", {"suite.json: name: not a string"});
}

TEST(MalformedSuite, UnknownKernelNamesTheEntry) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"kernels": {"nope": ["n=4"]}})",
                     {"suite.json: kernels.nope: unknown kernel 'nope'"});
}

TEST(MalformedSuite, DuplicateKernelIsRefused) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"kernels": {"red": ["b=1,n=1024"], "red": ["b=1,n=2048"]}})",
                     {"suite.json: kernels.red: duplicate key"});
}

TEST(MalformedSuite, NestedArraysAreRefused) {
  const TempDir dir;
  expectSuiteRefused(dir, repeat("[", 1000000), {"suite.json: line 1, column 257:", "256 levels"});
}

TEST(MalformedSuite, NumberOverflowIsNamed) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"kernels": {}, "seed": 1e400})", {"suite.json: line 1,", "number overflow"});
}

TEST(MalformedSuite, UnknownElementTypeIsNamed) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"types": {"red": "i128"}, "kernels": {"red": ["b=1,n=64"]}})",
                     {"suite.json: types.red: 'i128' is not an element type"});
}

TEST(MalformedSuite, TypeOfAKernelNotInTheSuiteIsRefused) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"types": {"va": "i32"}, "kernels": {"red": ["b=1,n=64"]}})",
                     {"suite.json: types.va: the suite has no such kernel"});
}

TEST(MalformedSuite, ParameterNotANumberIsNamed) {
  const TempDir dir;
  expectSuiteRefused(dir,
                     R"({"parameters": {"red": {"pim.tasklets": "8"}}, "kernels": {"red": ["b=1,n=64"]}})",
                     {"suite.json: parameters.red.pim.tasklets: not a finite number"});
  expectSuiteRefused(dir, R"({"parameters": {"red": 4}, "kernels": {"red": ["b=1,n=64"]}})",
                     {"suite.json: parameters.red: not an object of parameter values"});
}

TEST(MalformedSuite, ShapesNotAListStaysClear) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"kernels": {"red": "b=1"}})",
                     {"suite.json: kernels.red: not a list of shapes"});
}

TEST(MalformedSuite, ShapeNotAStringStaysClear) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"kernels": {"red": [4]}})",
                     {"suite.json: kernels.red: a shape is not a string"});
}

TEST(MalformedSuite, BadShapeStaysClear) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"kernels": {"red": ["n=0"]}})", {"suite.json: kernels.red:", "dimension 'n'"});
}

TEST(MalformedSuite, MissingKernelsStaysClear) {
  const TempDir dir;
  expectSuiteRefused(dir, R"({"name": "x"})", {"suite.json: kernels: missing or not an object"});
}

// ---------------------------------------------------------------------------------------------------------
// Model metadata (<backend>.json beside <backend>.model)

/// A model directory with hbm2-pim's shipped metadata edited by `edit` and its shipped model.
void writeModelDir(const TempDir& dir, const std::function<void(std::string&)>& edit) {
  std::string meta = readBytes(shipped("models/hbm2-pim.json"));
  edit(meta);
  writeBytes(dir.file("hbm2-pim.json"), meta);
  std::filesystem::copy_file(shipped("models/hbm2-pim.model"), dir.file("hbm2-pim.model"));
}

TEST(MalformedModelMetadata, WrongTypeNamesTheField) {
  const TempDir dir;
  writeModelDir(
      dir, [](std::string& m) { m.replace(m.find("\"samples\":"), 10, "\"samples\": \"many\", \"x\":"); });
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: samples: has the wrong type (string)"});
}

TEST(MalformedModelMetadata, FeaturesOfWrongTypeNamesTheField) {
  const TempDir dir;
  writeModelDir(dir,
                [](std::string& m) { m.replace(m.find("\"features\":"), 11, "\"features\": 3, \"y\":"); });
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: features: has the wrong type (number)"});
}

TEST(MalformedModelMetadata, TopLevelArrayIsRefused) {
  const TempDir dir;
  writeModelDir(dir, [](std::string& m) { m = "[" + m + "]"; });
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: expected a JSON object at top level, got array"});
}

TEST(MalformedModelMetadata, DuplicateKeyIsRefused) {
  const TempDir dir;
  writeModelDir(dir, [](std::string& m) { m.insert(m.find('{') + 1, "\"seed\": 7,\"seed\": 8,"); });
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: seed: duplicate key"});
}

TEST(MalformedModelMetadata, NumberOverflowIsNamed) {
  const TempDir dir;
  writeModelDir(dir, [](std::string& m) { m.insert(m.find('{') + 1, "\"zz\": 1e400,"); });
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: line 1,", "number overflow parsing '1e400'"});
}

TEST(MalformedModelMetadata, DirectoryAsMetadataSaysSo) {
  const TempDir dir;
  std::filesystem::create_directory(dir.file("hbm2-pim.json"));
  writeBytes(dir.file("hbm2-pim.model"), "x");
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: is a directory, not a model metadata file"});
}

TEST(MalformedModelMetadata, FifoAsModelIsRefused) {
  const TempDir dir;
  writeBytes(dir.file("hbm2-pim.json"), readBytes(shipped("models/hbm2-pim.json")));
  makeFifo(dir, "hbm2-pim.model");
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.model: is a FIFO (named pipe), not a regular file"});
}

TEST(MalformedModelMetadata, MissingFeaturesStaysClear) {
  const TempDir dir;
  writeModelDir(dir, [](std::string& m) { m.replace(m.find("\"features\":"), 11, "\"unused\":"); });
  expectError([&] { Predictor::loadShipped("hbm2-pim", dir.path()); },
              {"hbm2-pim.json: no \"features\": the model's feature schema is missing"});
}

}  // namespace
}  // namespace pim
