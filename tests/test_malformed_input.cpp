// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22), part 1: any file, JSON, the kernel DSL and backend files. One
// test per hostile or malformed input, each with the message it must get. Crashes (deep nesting), hangs
// (devices, FIFOs), silent wrong answers (duplicate keys) and raw library errors each became one line naming
// the file and the place; the clear answers that were already right are here too, so they stay clear. Part 2:
// test_malformed_workflow_input.cpp (schedules, suites, model metadata); part 3: test_malformed_cli.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/common/input_file.h"
#include "engine/common/json_input.h"
#include "engine/common/json_output.h"
#include "engine/common/mapped_file.h"
#include "engine/kernel/dsl.h"
#include "engine/target/registry.h"
#include "tests/malformed_input.h"

namespace pim {
namespace {

using namespace pim::test;

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

// The depth is checked while lexing: the error comes before the lexer reaches the rest of the file (here a
// character it refuses on the next line), so a 16 MiB file of '(' fails at the 257th one.
TEST(MalformedDsl, DeepNestingFailsBeforeTheRestOfTheFileIsLexed) {
  const std::string text = kernelWithExtent(repeat("(", 1000000) + "n" + repeat(")", 1000000)) + "$\n";
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:2:276: expression nested deeper than 256 levels"});
  const std::string signs = kernelWithValue(repeat("-", 1000000) + "x[b][i]") + "$\n";
  expectError([&] { parseKernel(signs, "k.pim"); }, {"k.pim:4:", "nested deeper than 256 levels"});
}

TEST(MalformedDsl, NestingContinuedOverBackslashLinesIsCounted) {
  const std::string text = kernelWithExtent(repeat("(\\\n", 300) + "n" + repeat(")", 300)) + "$\n";
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:258:1: expression nested deeper than 256 levels"});
}

// Nesting counts within one statement: binary signs, closed parentheses and earlier lines add nothing.
TEST(MalformedDsl, NestingDoesNotAddUpAcrossOperatorsOrStatements) {
  EXPECT_NO_THROW(parseKernel(kernelWithValue("x[b][i]" + repeat(" - -x[b][i]", 100)), "ok.pim"));
  EXPECT_NO_THROW(parseKernel(kernelWithValue(repeat("(x[b][i]) - ", 100) + "x[b][i]"), "ok.pim"));
  std::string manyLines = std::string(kRedHead);
  for (int s = 0; s < 3; ++s)
    manyLines += "  for b < b, i < n: y[b] += " + repeat("(", 200) + "x[b][i]" + repeat(")", 200) + "\n";
  EXPECT_NO_THROW(parseKernel(manyLines + "end\n", "ok.pim"));
}

// A text of many short tokens, nested nowhere, is bounded too: lexed whole, 16 MiB of them took 1.7 GB.
TEST(MalformedDsl, MillionsOfTokensInOneStatementStopAtTheTokenLimit) {
  const std::string text = kernelWithValue("x[b][i]" + repeat(" + x[b][i]", 2000000));
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:4:", "more than 65536 tokens, the limit"});
}

TEST(MalformedDsl, MillionsOfShortLinesStopAtTheTokenLimit) {
  const std::string text = std::string(kRedHead) + repeat("  x\n", 2000000);
  expectError([&] { parseKernel(text, "k.pim"); }, {"k.pim:65512:3: more than 65536 tokens"});
}

// 28 tokens of head, 21 per statement, 29 in the last one, 1 for 'end': exactly the limit is a kernel.
TEST(MalformedDsl, TokenLimitIsExact) {
  std::string text = std::string(kRedHead) + repeat("  for b < b, i < n: y[b] += x[b][i]\n", 3118);
  const std::string last = "  for b < b, i < n: y[b] += x[b][i] + x[b][i]\n";
  EXPECT_NO_THROW(parseKernel(text + last + "end\n", "ok.pim"));
  expectError([&] { parseKernel(text + last + "  end end\n", "k.pim"); },
              {"k.pim:3123:7: more than 65536 tokens"});
}

TEST(MalformedDsl, InvalidUtf8InADocIsRefusedWhereItIs) {
  const std::string text = std::string(kRedHead) + "  doc \"ok \xc3\xa9, then \xff\"\n" +
                           "  for b < b, i < n: y[b] += x[b][i]\nend\n";
  expectError([&] { parseKernel(text, "k.pim"); },
              {"k.pim:4:20: invalid UTF-8 (byte 0xff); a kernel file is UTF-8 text"});
}

TEST(MalformedDsl, InvalidUtf8InACommentIsRefused) {
  expectError([] { parseKernel(kernelWithValue("x[b][i]  # \xed\xa0\x80 a surrogate"), "k.pim"); },
              {"k.pim:4:", "invalid UTF-8 (byte 0xed)"});
}

TEST(Utf8, FirstInvalidByteIsFound) {
  EXPECT_EQ(firstInvalidUtf8("plain"), std::string_view::npos);
  EXPECT_EQ(firstInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::string_view::npos);
  EXPECT_EQ(firstInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(firstInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(firstInvalidUtf8("\xe0\x80\xaf"), 0u);      // overlong, three bytes
  EXPECT_EQ(firstInvalidUtf8("x\xed\xa0\x80"), 1u);     // a UTF-16 surrogate
  EXPECT_EQ(firstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(firstInvalidUtf8("ok\xe2\x82"), 2u);        // cut short
  EXPECT_EQ(firstInvalidUtf8("\xc3\x28"), 0u);          // no continuation byte
}

// nlohmann's dump() throws on such text; dumpJson writes U+FFFD, so the output is JSON that parses.
TEST(Utf8, DumpJsonReplacesInvalidText) {
  const nlohmann::json j = {{"path", "out\xff.json"}, {"name", "caf\xc3\xa9"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
  const auto back = nlohmann::json::parse(dumpJson(j, 2));
  EXPECT_EQ(back["path"].get<std::string>(), "out\xef\xbf\xbd.json");
  EXPECT_EQ(back["name"].get<std::string>(), "caf\xc3\xa9");
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
  expectError([] { parseKernel("kernel k(n = 4)\n  input x: f8[n]\n", "k.pim"); },
              {"k.pim:2:", "unknown dtype 'f8'"});
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

}  // namespace
}  // namespace pim
