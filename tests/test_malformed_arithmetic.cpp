// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22), part 4: sizes that overflow, indices outside their tensors,
// backend values a typed field cannot hold, and output paths that must not be written through
// (tests/test_malformed_input.cpp has the introduction; the store and CLI cases are in
// tests/test_malformed_results.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/common/checked.h"
#include "engine/common/output_file.h"
#include "engine/core/problem.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/kernel/shape_check.h"
#include "tests/malformed_input.h"

namespace pim {
namespace {

using namespace pim::test;

const std::string kTwo40 = "1099511627776";

// ---------------------------------------------------------------------------------------------------------
// Checked arithmetic

TEST(CheckedArithmetic, OverflowNamesTheExpression) {
  EXPECT_EQ(checkedMul<std::int64_t>(3, 4, "x"), 12);
  EXPECT_EQ(checkedAdd<std::int64_t>(3, 4, "x"), 7);
  expectError([] { checkedMul<std::int64_t>(std::int64_t{1} << 40, std::int64_t{1} << 40, "A's elements"); },
              {"A's elements: 1099511627776 * 1099511627776 overflows (above 9223372036854775807)"});
  expectError([] { checkedAdd<std::int64_t>(INT64_MAX, 1, "bound"); }, {"bound: 9223372036854775807 + 1"});
  expectError([] { checkedNarrow<int>(std::int64_t{3000000000}, "devices"); },
              {"devices: 3000000000 is outside -2147483648..2147483647"});
  EXPECT_EQ(checkedNarrow<int>(std::int64_t{64}, "devices"), 64);
}

Problem problemOf(const std::string& backend, const Kernel& k, const std::string& shape) {
  return Problem(builtinBackends().get(backend), k, parseShape(k, shape));
}

TEST(MalformedShape, GemmAtTwoToTheFortyIsRefusedNotSimulatedOnZeroBanks) {
  const Kernel gemm = KernelLibrary::builtin().get("gemm");
  expectError([&] { problemOf("hbm-pim", gemm, "m=" + kTwo40 + ",n=" + kTwo40 + ",k=" + kTwo40); },
              {"kernel gemm: tensor 'A' is 1099511627776 x 1099511627776 f16 elements under shape m=",
               "more than the 2^56 bytes of the largest tensor PIMScope models"});
}

TEST(MalformedShape, ExtentThatOverflowsIsNamedNotZero) {
  const Kernel k = parseKernel(kernelWithExtent("n*8589934592"), "k.pim");
  expectError([&] { tensorExtents(k, 0, parseShape(k, "n=" + kTwo40)); },
              {"kernel k: tensor 'x' dimension 1 (n*8589934592) under shape b=1,n=1099511627776: ",
               "8589934592 * 1099511627776 overflows"});
}

TEST(MalformedShape, LoopBoundThatOverflowsIsNamedNotEmpty) {
  const Kernel k =
      parseKernel(std::string(kRedHead) + "  for b < b, i < n*8589934592: y[b] += x[b][i]\nend\n", "k.pim");
  expectError(
      [&] { loopBounds(k, 1, parseShape(k, "n=" + kTwo40)); },
      {"kernel red: loop 'i' range [0, n*8589934592) under shape b=1,n=1099511627776: ", "overflows"});
}

TEST(MalformedShape, SubtractingTheSmallestIntegerIsAnOverflowNotUndefined) {
  expectError([] { parseKernel(kernelWithExtent("n - (0 - 9223372036854775807 - 1)"), "k.pim"); },
              {"k.pim:2:22: integer overflow in affine expression"});
}

TEST(MalformedShape, StatementWithTooManyIterationsIsRefused) {
  const Kernel k = parseKernel(
      std::string(kRedHead) + "  for b < b, i < n, j < n, l < n: y[b] += x[b][i]\nend\n", "k.pim");
  expectError(
      [&] { problemOf("hbm2-pim", k, "n=" + kTwo40); },
      {"k.pim:4: the statement's loops run more than 2^60 iterations under shape b=1,n=1099511627776"});
}

// ---------------------------------------------------------------------------------------------------------
// Indices against extents

TEST(MalformedIndex, IndexBeyondTheExtentIsRefusedWithItsRange) {
  const Kernel k =
      parseKernel(std::string(kRedHead) + "  for b < b, i < n: y[b] += x[b][i+4096]\nend\n", "k.pim");
  expectError([&] { problemOf("hbm2-pim", k, "b=1,n=4096"); },
              {"k.pim:4:34: index i+4096 of tensor 'x' under shape b=1,n=4096 takes values 4096..8191, "
               "outside its extent n = 4096 (indices 0..4095)"});
}

TEST(MalformedIndex, NegativeIndexIsRefused) {
  const Kernel k =
      parseKernel(std::string(kRedHead) + "  for b < b, i < n: y[b] += x[b][i-1]\nend\n", "k.pim");
  expectError([&] { problemOf("hbm2-pim", k, "b=1,n=64"); },
              {"k.pim:4:34: index i-1 of tensor 'x' under shape b=1,n=64 takes values -1..62"});
}

TEST(MalformedIndex, IndexOfTheTargetIsChecked) {
  const Kernel k =
      parseKernel(std::string(kRedHead) + "  for b < b, i < n: y[b+1] += x[b][i]\nend\n", "k.pim");
  expectError([&] { problemOf("hbm2-pim", k, "b=2,n=64"); },
              {"k.pim:4:23: index b+1 of tensor 'y' under shape b=2,n=64 takes values 1..2, outside its "
               "extent b = 2"});
}

TEST(MalformedIndex, IndexInRangeUnderAGuardIsAccepted) {
  const Kernel k = parseKernel(
      "kernel s(b = 1, n = 64)\n  input x: f16[b][n]\n  output y: f16[b][n]\n"
      "  for b < b, i < n:\n      if i >= 1:\n      y[b][i] = x[b][i-1] + x[b][i]\nend\n",
      "s.pim");
  EXPECT_EQ(errorOf([&] { problemOf("hbm2-pim", k, "b=1,n=64"); }), "<no error>");
}

TEST(MalformedIndex, IndexOutOfRangeDependsOnTheShape) {
  // Fine while n <= m; refused once x is shorter than the loop that walks it.
  const Kernel k = parseKernel(
      "kernel t(m = 64, n = 64)\n  input x: f16[n]\n  output y: f16[m]\n  for i < m: y[i] = x[i]\nend\n",
      "t.pim");
  EXPECT_EQ(errorOf([&] { problemOf("hbm2-pim", k, "m=32,n=64"); }), "<no error>");
  expectError([&] { problemOf("hbm2-pim", k, "m=64,n=32"); },
              {"t.pim:4:23: index i of tensor 'x' under shape m=64,n=32 takes values 0..63, outside its "
               "extent n = 32"});
}

TEST(MalformedIndex, EveryShippedKernelStaysInRange) {
  for (const LibraryKernel& e : KernelLibrary::builtin().entries()) {
    const Kernel k = KernelLibrary::builtin().get(e.name);
    EXPECT_EQ(errorOf([&] { checkShapeFits(k, parseShape(k, "")); }), "<no error>") << e.name;
  }
  const Kernel dcc = loadKernelFile(shipped("kernels/dcc_example.pim"));
  EXPECT_EQ(errorOf([&] { checkShapeFits(dcc, parseShape(dcc, "")); }), "<no error>");
}

// ---------------------------------------------------------------------------------------------------------
// Backend values a typed field cannot hold

std::string backendWith(const std::string& section, const std::string& field, double value) {
  nlohmann::json j = nlohmann::json::parse(readBytes(shipped("backends/hbm2-pim.json")));
  j[section][field]["value"] = value;
  j[section][field]["max"] = 1e12;
  return j.dump();
}

TEST(MalformedBackend, DevicesAboveAnIntAreRefusedNamingTheField) {
  expectError([] { parseBackend(backendWith("system", "devices", 3e9), "b.json"); },
              {"b.json: system.devices: value 3000000000 is above the largest supported, 2147483647"});
}

TEST(MalformedBackend, UnitCountsWhoseProductOverflowsAreRefused) {
  nlohmann::json j = nlohmann::json::parse(backendWith("system", "devices", 65536));
  j["group"]["groupsPerDevice"]["value"] = 65536;
  j["group"]["groupsPerDevice"]["max"] = 1e12;
  expectError([&] { parseBackend(j.dump(), "b.json"); },
              {"b.json: system.devices x group.groupsPerDevice: 65536 x 65536 = 4294967296 units"});
}

// ---------------------------------------------------------------------------------------------------------
// Output paths

TEST(MalformedOutput, DeviceIsNotReplaced) {
  expectError([] { requireWritableOutput("/dev/null", "--out"); },
              {"--out /dev/null: is a device, not a file PIMScope may replace"});
  expectError([] { writeFileAtomically("/dev/null", "x"); }, {"/dev/null: is a device"});
}

TEST(MalformedOutput, FifoDirectoryAndSymlinkAreNotReplaced) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "pipe");
  expectError([&] { writeFileAtomically(fifo, "x"); }, {fifo + ": is a FIFO"});
  expectError([&] { writeFileAtomically(dir.path(), "x"); }, {dir.path() + ": is a directory"});
  writeBytes(dir.file("victim"), "keep");
  ASSERT_EQ(::symlink(dir.file("victim").c_str(), dir.file("link").c_str()), 0);
  expectError([&] { writeFileAtomically(dir.file("link"), "x"); }, {"link: is a symbolic link"});
  EXPECT_EQ(readBytes(dir.file("victim")), "keep");
}

TEST(MalformedOutput, MissingFolderIsRefusedBeforeWork) {
  const TempDir dir;
  expectError([&] { requireWritableOutput(dir.file("no/such/x.ir"), "--out"); },
              {"x.ir: cannot write there: No such file or directory"});
}

TEST(MalformedOutput, RegularFileIsReplacedAndNoTemporaryIsLeft) {
  const TempDir dir;
  writeBytes(dir.file("out.txt"), "old");
  requireWritableOutput(dir.file("out.txt"), "--out");
  writeFileAtomically(dir.file("out.txt"), "new");
  EXPECT_EQ(readBytes(dir.file("out.txt")), "new");
  EXPECT_EQ(dir.entries(), 1u);
}

// A 255-byte name is valid: its temporary beside it must not be longer (it was the name plus a suffix).
TEST(MalformedOutput, LongestValidNameIsWritten) {
  const TempDir dir;
  const std::string path = dir.file(std::string(250, 'a') + ".json");
  requireWritableOutput(path, "--out");
  writeFileAtomically(path, "new");
  EXPECT_EQ(readBytes(path), "new");
  EXPECT_EQ(dir.entries(), 1u);
}

}  // namespace
}  // namespace pim
