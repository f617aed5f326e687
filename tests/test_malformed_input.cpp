// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22): one test per hostile or malformed input, grouped by format, each
// with the message it must get. Crashes (deep nesting), hangs (devices, FIFOs), silent wrong answers
// (duplicate keys) and raw library errors each became one line naming the file and the place; the clear
// answers that were already right are here too, so they stay clear.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_input.h"
#include "engine/common/mapped_file.h"
#include "engine/common/threads.h"
#include "engine/kernel/dsl.h"
#include "engine/predict/predictor.h"
#include "engine/search/schedule_file.h"
#include "engine/workflow/training.h"
#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace pim {
namespace {

using test::readBytes;
using test::TempDir;
using test::writeBytes;

/// The InputError message of `f`, or "<no error>".
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

void expectError(const std::function<void()>& f, std::initializer_list<std::string> needles) {
  const std::string msg = errorOf(f);
  for (const std::string& n : needles)
    EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg << "\nexpected to contain: " << n;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string makeFifo(const TempDir& dir, const std::string& name) {
  const std::string path = dir.file(name);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

std::string shipped(const std::string& relative) { return dataDir() + "/" + relative; }

// ---------------------------------------------------------------------------------------------------------
// Any file: readInputFile and MappedFile

TEST(MalformedFile, MissingFileIsNamed) {
  expectError([] { readInputFile("/nonexistent/k.pim", "kernel file"); },
              {"/nonexistent/k.pim: cannot open kernel file: No such file or directory"});
}

TEST(MalformedFile, DirectoryIsRefused) {
  const TempDir dir;
  expectError([&] { readInputFile(dir.path(), "suite file"); },
              {dir.path() + ": is a directory, not a suite file"});
}

TEST(MalformedFile, DevZeroIsRefusedBeforeReading) {
  expectError([] { readInputFile("/dev/zero", "backend file"); },
              {"/dev/zero: is a device, not a backend file"});
}

TEST(MalformedFile, FifoIsRefusedWithoutBlocking) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "pipe");
  expectError([&] { readInputFile(fifo, "schedule file"); },
              {fifo + ": is a FIFO (named pipe), not a schedule file"});
}

TEST(MalformedFile, SymlinkToDeviceIsRefused) {
  const TempDir dir;
  std::filesystem::create_symlink("/dev/zero", dir.file("link.pim"));
  expectError([&] { readInputFile(dir.file("link.pim"), "kernel file"); },
              {"is a device, not a kernel file"});
}

TEST(MalformedFile, FileAboveTheLimitIsRefused) {
  const TempDir dir;
  writeBytes(dir.file("big.json"), std::string(11, ' '));
  expectError([&] { readInputFile(dir.file("big.json"), "suite file", 10); },
              {"big.json: is 11 bytes, above the limit of 10 bytes for a suite file"});
}

TEST(MalformedFile, DefaultLimitIsSixteenMebibytes) {
  const TempDir dir;
  writeBytes(dir.file("big.pim"), std::string(kMaxInputFileBytes + 1, '#'));
  expectError([&] { readInputFile(dir.file("big.pim"), "kernel file"); }, {"above the limit of 16 MiB"});
}

TEST(MalformedFile, FileAtTheLimitIsRead) {
  const TempDir dir;
  writeBytes(dir.file("ok.json"), "0123456789");
  EXPECT_EQ(readInputFile(dir.file("ok.json"), "suite file", 10), "0123456789");
}

TEST(MalformedFile, EmptyFileIsReadAsEmpty) {
  const TempDir dir;
  writeBytes(dir.file("empty"), "");
  EXPECT_EQ(readInputFile(dir.file("empty"), "kernel file"), "");
}

TEST(MalformedFile, MappedFileRefusesFifoWithoutBlocking) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "m.model");
  expectError([&] { MappedFile m(fifo); }, {fifo + ": is a FIFO (named pipe), not a regular file"});
}

TEST(MalformedFile, MappedFileRefusesDirectory) {
  const TempDir dir;
  expectError([&] { MappedFile m(dir.path()); }, {": is a directory, not a regular file"});
}

// ---------------------------------------------------------------------------------------------------------
// JSON (every JSON reader goes through parseJsonInput)

TEST(MalformedJson, SyntaxErrorNamesLineAndColumn) {
  expectError([] { parseJsonInput("{\n  \"a\": ,\n}", "x.json"); },
              {"x.json: line 2, column 8: invalid JSON: syntax error"});
}

TEST(MalformedJson, TruncatedTextNamesTheEnd) {
  expectError([] { parseJsonInput("{\"a\": [1, 2", "x.json"); },
              {"x.json: line 1, column 12: invalid JSON:", "unexpected end of input"});
}

TEST(MalformedJson, EmptyTextIsInvalid) {
  expectError([] { parseJsonInput("", "x.json"); }, {"x.json: line 1, column 1: invalid JSON:"});
}

TEST(MalformedJson, TrailingTextIsInvalid) {
  expectError([] { parseJsonInput("{} {}", "x.json"); }, {"x.json: line 1, column 4: invalid JSON:"});
}

TEST(MalformedJson, MillionNestedArraysAreRefused) {
  const std::string text = repeat("[", 1000000) + repeat("]", 1000000);
  expectError([&] { parseJsonInput(text, "deep.json"); },
              {"deep.json: line 1, column 257: invalid JSON: nested deeper than 256 levels"});
}

TEST(MalformedJson, MillionNestedObjectsAreRefused) {
  const std::string text = repeat("{\"a\":", 1000000) + "1" + repeat("}", 1000000);
  expectError([&] { parseJsonInput(text, "deep.json"); }, {"deep.json: line 1, column 1281:", "256 levels"});
}

TEST(MalformedJson, DepthLimitIsExact) {
  EXPECT_NO_THROW(parseJsonInput(repeat("[", 256) + repeat("]", 256), "ok.json"));
  expectError([] { parseJsonInput(repeat("[", 257) + repeat("]", 257), "x.json"); }, {"column 257"});
}

TEST(MalformedJson, BracketsInStringsDoNotMoveTheDepthPosition) {
  const std::string text = "[\"[[[[\\\"[[\",\n" + repeat("[", 300) + repeat("]", 301);
  expectError([&] { parseJsonInput(text, "x.json"); }, {"x.json: line 2, column 256:"});
}

TEST(MalformedJson, DuplicateTopLevelKeyIsRefused) {
  expectError([] { parseJsonInput(R"({"name": "a", "name": "b"})", "x.json"); },
              {"x.json: name: duplicate key"});
}

TEST(MalformedJson, DuplicateNestedKeyNamesItsPath) {
  expectError([] { parseJsonInput(R"({"energy": {"ACT": 1, "PRE": 2, "ACT": 40}})", "x.json"); },
              {"x.json: energy.ACT: duplicate key"});
}

TEST(MalformedJson, DuplicateKeyInAnArrayElementNamesTheIndex) {
  expectError([] { parseJsonInput(R"({"list": [{"x": 1}, {"x": 1, "x": 2}]})", "x.json"); },
              {"x.json: list[1].x: duplicate key"});
}

TEST(MalformedJson, EqualKeysInSiblingObjectsAreFine) {
  const auto j = parseJsonInput(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})", "ok.json");
  EXPECT_EQ(j["c"][1]["x"], 4);
}

TEST(MalformedJson, NumberOverflowIsNamed) {
  expectError([] { parseJsonInput(R"({"v": 1e400})", "x.json"); },
              {"x.json: line 1, column", "invalid JSON: number overflow parsing '1e400'"});
}

TEST(MalformedJson, NegativeNumberOverflowIsNamed) {
  expectError([] { parseJsonInput("[-1e400]", "x.json"); }, {"number overflow parsing '-1e400'"});
}

TEST(MalformedJson, IntegerBeyondSixtyFourBitsIsAFloat) {
  const auto j = parseJsonInput("[123456789012345678901234567890]", "ok.json");
  EXPECT_TRUE(j[0].is_number_float());
}

TEST(MalformedJson, InvalidUtf8IsRefused) {
  expectError([] { parseJsonInput("{\"a\": \"\xff\xfe\"}", "x.json"); }, {"x.json: line 1", "invalid JSON"});
}

TEST(MalformedJson, ParsesShippedFilesAsNlohmannDoes) {
  for (const char* f : {"backends/hbm2-pim.json", "backends/upmem.json", "suites/quick.json"}) {
    const std::string text = readBytes(shipped(f));
    EXPECT_EQ(parseJsonInput<nlohmann::ordered_json>(text, f), nlohmann::ordered_json::parse(text)) << f;
    EXPECT_EQ(parseJsonInput(text, f), nlohmann::json::parse(text)) << f;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Kernel DSL

const char* const kRedHead = "kernel red(b = 1, n = 4096)\n  input  x: f16[b][n]\n  output y: f16[b]\n";

std::string kernelWithExtent(const std::string& extent) {
  return "kernel k(b = 1, n = 4096)\n  input  x: f16[b][" + extent + "]\n  output y: f16[b]\n" +
         "  for b < b, i < n: y[b] += x[b][i]\nend\n";
}
std::string kernelWithValue(const std::string& value) {
  return std::string(kRedHead) + "  for b < b, i < n: y[b] += " + value + "\nend\n";
}

TEST(MalformedDsl, MissingKernelFileIsNamed) {
  expectError([] { loadKernelFile("/nonexistent/k.pim"); }, {"/nonexistent/k.pim: cannot open kernel file"});
}

TEST(MalformedDsl, DirectoryAsKernelFileSaysSo) {
  const TempDir dir;
  expectError([&] { loadKernelFile(dir.path()); }, {dir.path() + ": is a directory, not a kernel file"});
}

TEST(MalformedDsl, DevZeroAsKernelFileIsRefused) {
  expectError([] { loadKernelFile("/dev/zero"); }, {"/dev/zero: is a device, not a kernel file"});
}

TEST(MalformedDsl, FifoAsKernelFileIsRefused) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "k.pim");
  expectError([&] { loadKernelFile(fifo); }, {"is a FIFO (named pipe), not a kernel file"});
}

TEST(MalformedDsl, TenThousandNestedParenthesesInAnExtent) {
  const std::string text = kernelWithExtent(repeat("(", 10000) + "n" + repeat(")", 10000));
  // Column of the 257th '(' on line 2, after "  input  x: f16[b][".
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:2:276: expression nested deeper than 256 levels"});
}

TEST(MalformedDsl, MillionNestedParenthesesInAnExtent) {
  const std::string text = kernelWithExtent(repeat("(", 1000000) + "n" + repeat(")", 1000000));
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:2:276: expression nested deeper than 256 levels"});
}

TEST(MalformedDsl, TenThousandUnaryMinusInAnExtent) {
  const std::string text = kernelWithExtent(repeat("-", 10000) + "n");
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:2:276: expression nested deeper than 256 levels"});
}

TEST(MalformedDsl, MillionUnaryMinusInAValue) {
  const std::string text = kernelWithValue(repeat("-", 1000000) + "x[b][i]");
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:4:", "nested deeper than 256 levels"});
}

TEST(MalformedDsl, MillionNestedParenthesesInAValue) {
  const std::string text = kernelWithValue(repeat("(", 1000000) + "x[b][i]" + repeat(")", 1000000));
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:4:", "nested deeper than 256 levels"});
}

TEST(MalformedDsl, MillionNestedParenthesesInAnIndex) {
  const std::string text = kernelWithValue("x[b][" + repeat("(", 1000000) + "i" + repeat(")", 1000000) + "]");
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:4:", "nested deeper than 256 levels"});
}

TEST(MalformedDsl, NestingLimitIsExactInAnExtent) {
  EXPECT_NO_THROW(parseKernel(kernelWithExtent(repeat("(", 256) + "n" + repeat(")", 256)), "ok.pim"));
  expectError([] { parseKernel(kernelWithExtent(repeat("(", 257) + "n" + repeat(")", 257)), "k.pim"); },
              {"k.pim:2:276:"});
}

TEST(MalformedDsl, LongChainOfOperatorsIsRefused) {
  const std::string text = kernelWithValue("x[b][i]" + repeat(" + x[b][i]", 300));
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:4:", "chain of operators"});
}

TEST(MalformedDsl, ShortChainOfOperatorsIsFine) {
  EXPECT_NO_THROW(parseKernel(kernelWithValue("x[b][i]" + repeat(" * x[b][i]", 100)), "ok.pim"));
}

TEST(MalformedDsl, DeeplyNestedCallsAreRefused) {
  const std::string text = kernelWithValue(repeat("relu(", 5000) + "x[b][i]" + repeat(")", 5000));
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:4:", "nested deeper than 256 levels"});
}

TEST(MalformedDsl, UnknownTensorStaysClear) {
  expectError([] { parseKernel(kernelWithValue("z[b][i]"), "k.pim"); }, {"k.pim:4:", "unknown tensor 'z'"});
}

TEST(MalformedDsl, NonAffineIndexStaysClear) {
  expectError([] { parseKernel(kernelWithValue("x[b][i*i]"), "k.pim"); },
              {"k.pim:4:", "non-affine expression: product of two variable terms"});
}

TEST(MalformedDsl, UnknownDtypeStaysClear) {
  expectError([] { parseKernel("kernel k(n = 4)\n  input x: f64[n]\n", "k.pim"); },
              {"k.pim:2:", "unknown dtype 'f64'"});
}

TEST(MalformedDsl, MissingEndStaysClear) {
  expectError([] { parseKernel(std::string(kRedHead) + "  for b < b, i < n: y[b] += x[b][i]\n", "k.pim"); },
              {"missing 'end' for kernel 'red'"});
}

TEST(MalformedDsl, UnterminatedStringStaysClear) {
  expectError([] { parseKernel("kernel k(n = 4)\n  doc \"open\n", "k.pim"); },
              {"k.pim:2:", "unterminated string"});
}

// ---------------------------------------------------------------------------------------------------------
// Backend files

std::string hbm2Text() { return readBytes(shipped("backends/hbm2-pim.json")); }

/// hbm2-pim's text with `insert` placed just after the first occurrence of `after`.
std::string hbm2With(const std::string& after, const std::string& insert) {
  std::string text = hbm2Text();
  const std::size_t at = text.find(after);
  EXPECT_NE(at, std::string::npos) << after;
  return text.insert(at + after.size(), insert);
}

TEST(MalformedBackend, DuplicateEnergyKeyIsRefusedWithItsPath) {
  const std::string text = hbm2With("\"energy\": {", "\n    \"ACT\": {\"value\": 40000},");
  expectError([&] { parseBackend(text, "b.json"); }, {"b.json: energy.ACT: duplicate key"});
}

TEST(MalformedBackend, DuplicateNameIsRefused) {
  const std::string text = hbm2With("{", "\n  \"name\": \"other\",");
  expectError([&] { parseBackend(text, "b.json"); }, {"b.json: name: duplicate key"});
}

TEST(MalformedBackend, NumberOverflowIsNamed) {
  std::string text = hbm2Text();
  text.replace(text.find("\"value\": 1024"), 13, "\"value\": 1e400");
  expectError([&] { parseBackend(text, "b.json"); }, {"b.json: line ", "number overflow parsing '1e400'"});
}

TEST(MalformedBackend, MillionNestedArraysAreRefused) {
  const std::string text = repeat("[", 1000000) + repeat("]", 1000000);
  expectError([&] { parseBackend(text, "b.json"); },
              {"b.json: line 1, column 257: invalid JSON: nested deeper than 256 levels"});
}

TEST(MalformedBackend, NestedArraysInAnUnknownFieldAreRefused) {
  const std::string text = hbm2With("{", "\n  \"junk\": " + repeat("[", 100000) + repeat("]", 100000) + ",");
  expectError([&] { parseBackend(text, "b.json"); }, {"b.json: line 2,", "nested deeper than 256 levels"});
}

TEST(MalformedBackend, DirectoryAsBackendFileSaysSo) {
  const TempDir dir;
  expectError([&] { loadBackendFile(dir.path()); }, {dir.path() + ": is a directory, not a backend file"});
}

TEST(MalformedBackend, DevZeroAsBackendFileIsRefused) {
  expectError([] { loadBackendFile("/dev/zero"); }, {"/dev/zero: is a device, not a backend file"});
}

TEST(MalformedBackend, EmptyFileStaysClear) {
  expectError([] { parseBackend("  \n", "b.json"); }, {"b.json: empty file"});
}

TEST(MalformedBackend, SyntaxErrorStaysClear) {
  expectError([] { parseBackend("{\n  \"name\": \"x\",,\n}", "b.json"); },
              {"b.json: line 2, column 15: invalid JSON"});
}

TEST(MalformedBackend, TopLevelArrayStaysClear) {
  expectError([] { parseBackend("[1]", "b.json"); },
              {"b.json: expected a JSON object at top level, got array"});
}

TEST(MalformedBackend, WrongTypeStaysClear) {
  std::string text = hbm2Text();
  text.replace(text.find("\"value\": 1024"), 13, "\"value\": \"fast\"");
  expectError([&] { parseBackend(text, "b.json"); },
              {"b.json: system.hostBandwidthGBps.value: expected a number, got string"});
}

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
  text.replace(text.find("\"version\": 1"), 12, "\"version\": 1e400");
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

// ---------------------------------------------------------------------------------------------------------
// Threads

TEST(WorkerThreads, StartThreadsRunsEveryBody) {
  std::vector<std::thread> pool;
  std::atomic<int> ran{0};
  EXPECT_EQ(startThreads(pool, 3, [&](std::size_t) { ++ran; }), 3u);
  for (auto& t : pool) t.join();
  EXPECT_EQ(ran.load(), 3);
}

#if !defined(__SANITIZE_ADDRESS__)
// A thread the system refuses (here: no address space left for its stack) ends the pool, not the process.
TEST(WorkerThreads, RefusedThreadIsNotFatal) {
  EXPECT_EXIT(
      {
        rlimit r{};
        getrlimit(RLIMIT_AS, &r);
        r.rlim_cur = std::size_t{1} << 30;  // room for the process and a few 8 MiB stacks
        setrlimit(RLIMIT_AS, &r);
        std::vector<std::thread> pool;
        const std::size_t started = startThreads(pool, 100000, [](std::size_t) {});
        for (auto& t : pool) t.join();
        std::exit(started < 100000 ? 0 : 3);
      },
      testing::ExitedWithCode(0), "");
}
#endif

// ---------------------------------------------------------------------------------------------------------
// The CLI: exit code 2 and one line

#ifdef PIMSCOPE_CLI
const TempDir& scratch() {
  static const TempDir dir;
  return dir;
}

test::CliRun cli(const std::string& args) { return test::runCli(args, scratch().file("err.txt")); }

void expectCliError(const std::string& args, std::initializer_list<std::string> needles) {
  const test::CliRun r = cli(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("pimscope-cli: error: ", 0), 0u) << r.err;
  for (const std::string& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << args << "\n" << r.err;
}

const std::string kRed = "-b hbm2-pim -k red -d b=1,n=4096 ";

TEST(MalformedCli, NegativeDraftInScheduleIsNotWrapped) {
  expectCliError("simulate " + kRed + "--schedule draft:-1",
                 {"--schedule draft:<id>: '-1' is not a draft id"});
  EXPECT_EQ(cli("simulate " + kRed + "--schedule draft:-1").err.find("18446744073709551615"),
            std::string::npos);
}

TEST(MalformedCli, DraftIdBeyondSixtyFourBitsIsRefused) {
  expectCliError("simulate " + kRed + "--schedule draft:99999999999999999999",
                 {"'99999999999999999999' is not a draft id"});
}

TEST(MalformedCli, DraftIdWithTextIsRefused) {
  expectCliError("simulate " + kRed + "--schedule draft:12x", {"'12x' is not a draft id"});
}

TEST(MalformedCli, DraftIdWithBlankOrSignIsRefused) {
  expectCliError("simulate " + kRed + "--schedule 'draft: 5'", {"' 5' is not a draft id"});
  expectCliError("simulate " + kRed + "--schedule draft:+5", {"'+5' is not a draft id"});
}

TEST(MalformedCli, NegativeExportDraftIsRefused) {
  expectCliError("export " + kRed + "--draft -1 --out " + scratch().file("x.ir") + " --format ir",
                 {"'-1' is not a draft id"});
}

TEST(MalformedCli, NegativeWhyDraftIsRefused) {
  expectCliError("why " + kRed + "--draft -1", {"--draft: '-1' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeTopIsRefused) {
  expectCliError("explore " + kRed + "--top -5", {"--top: '-5' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeMaxConfirmIsRefused) {
  expectCliError("explore " + kRed + "--max-confirm -1", {"--max-confirm: '-1' is not a whole number >= 0"});
}

TEST(MalformedCli, NanBandIsRefused) {
  expectCliError("explore " + kRed + "--band nan", {"--band: 'nan' is not a finite number >= 0"});
}

TEST(MalformedCli, InfiniteBandIsRefused) {
  expectCliError("explore " + kRed + "--band inf", {"--band: 'inf' is not a finite number >= 0"});
}

TEST(MalformedCli, NegativeBandIsRefused) {
  expectCliError("explore " + kRed + "--band -0.5", {"--band: '-0.5' is not a finite number >= 0"});
}

TEST(MalformedCli, NegativePredictLimitIsRefused) {
  expectCliError("explore " + kRed + "--predict-limit -3",
                 {"--predict-limit: '-3' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeEvaluateTopIsRefused) {
  expectCliError("evaluate -b hbm2-pim -k red --suite x.json --top -1",
                 {"--top: '-1' is not a whole number"});
}

TEST(MalformedCli, NegativeThreadsIsRefused) {
  expectCliError("train -b hbm2-pim --suite x.json --threads -1", {"--threads: '-1' is not a whole number"});
}

TEST(MalformedCli, NegativeDraftsLimitIsRefused) {
  expectCliError("drafts " + kRed + "--limit -1", {"--limit: '-1' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeChannelsIsRefused) {
  expectCliError("simulate " + kRed + "--channels -4", {"--channels: '-4' is not a whole number >= 0"});
}

TEST(MalformedCli, DirectoryAsSuiteSaysSo) {
  expectCliError("train -b hbm2-pim --suite " + scratch().path(), {"is a directory, not a suite file"});
}

TEST(MalformedCli, DirectoryAsKernelFileSaysSo) {
  expectCliError("drafts -b hbm2-pim --kernel-file " + scratch().path(),
                 {"is a directory, not a kernel file"});
}

TEST(MalformedCli, DevZeroAsKernelFileIsRefused) {
  expectCliError("drafts -b hbm2-pim --kernel-file /dev/zero", {"/dev/zero: is a device, not a kernel file"});
}

TEST(MalformedCli, DevZeroAsScheduleIsRefused) {
  expectCliError("import /dev/zero", {"/dev/zero: is a device, not a schedule file"});
}

TEST(MalformedCli, NumberOverflowInScheduleIsAnInputError) {
  writeBytes(scratch().file("big.json"), R"({"format": "pimscope-schedule", "version": 1e400})");
  expectCliError("import " + scratch().file("big.json"),
                 {"big.json: line 1,", "number overflow parsing '1e400'"});
}

TEST(MalformedCli, DeeplyNestedKernelFileIsAnInputError) {
  writeBytes(scratch().file("deep.pim"), kernelWithExtent(repeat("(", 1000000) + "n" + repeat(")", 1000000)));
  expectCliError("drafts -b hbm2-pim --kernel-file " + scratch().file("deep.pim"),
                 {"deep.pim:2:276: expression nested deeper than 256 levels"});
}

TEST(MalformedCli, TooManyThreadsAreCappedWithAWarning) {
  const test::CliRun r = cli("explore " + kRed + "--threads 100000");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("pimscope-cli: warning: --threads 100000 is more than the"), std::string::npos)
      << r.err;
}
#endif

}  // namespace
}  // namespace pim
