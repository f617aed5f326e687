// SPDX-License-Identifier: Apache-2.0
// ONNX models the reader refuses (engine/kernel/onnx_network.h, issues 19 and 22): an operation PIMCOMP-NN's
// frontend cannot map, a file that is no model, an inconsistent graph. Each gives one line naming the file,
// the node and the field, never an abort.
#include <gtest/gtest.h>

#include <string>

#include "engine/kernel/onnx_network.h"
#include "tests/onnx_model_builder.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using test::expectOneLineInputError;
using test::Model;
using test::setInts;

TEST(OnnxNetworkMalformed, AnUnsupportedOpIsNamedWithItsNode) {
  Model m;
  m.input("x", {1, 2, 4, 4});
  m.node("Relu", {"x"}, {"r"});
  m.node("LeakyRelu", {"r"}, {"y"});
  m.output("y");
  const test::TempDir dir;
  const std::string path = m.write(dir, "leaky.onnx");
  expectOneLineInputError([&] { loadOnnxNetwork(path); },
                          {path + ": ONNX node 1 'y' (LeakyRelu): op_type: unsupported operation 'LeakyRelu'",
                           "PIMCOMP-NN's frontend maps Constant and Add, AveragePool"});
  Model custom;
  custom.input("x", {1, 2});
  custom.node("Gelu", {"x"}, {"y"}).set_domain("com.microsoft");
  expectOneLineInputError([&] { parseOnnxNetwork(custom.bytes(), "ms.onnx"); },
                          {"ms.onnx: ONNX node 0 'y' (Gelu): op_type: unsupported operation 'Gelu' of domain "
                           "'com.microsoft'"});
}

// A file that is no model, a truncated one, an inconsistent one: one line naming the file (and the node and
// field where there is one), never an abort.
// A Conv without kernel_shape whose stored weight has another rank than its data (fuzz_onnx's finding:
// libonnx 1.13's shape inference then read past the data's dilations and crashed) is refused with its node;
// so is one whose weight has no stored shape to read the kernel from.
TEST(OnnxNetworkMalformed, AConvKernelIsReadFromItsStoredWeightOnly) {
  Model rank5;
  rank5.input("x", {1, 3, 8, 8});
  rank5.weight("w", {4, 3, 3, 3, 1});
  setInts(rank5.node("Conv", {"x", "w"}, {"c"}), "dilations", {1, 1});
  rank5.output("c");
  expectOneLineInputError([&] { parseOnnxNetwork(rank5.bytes(), "rank5.onnx"); },
                          {"rank5.onnx: ", "kernel_shape"});
  Model computed;
  computed.input("x", {1, 3, 8, 8});
  computed.weight("w", {4, 3, 3, 3});
  computed.node("Relu", {"w"}, {"rw"});
  computed.node("Conv", {"x", "rw"}, {"c"});
  computed.output("c");
  expectOneLineInputError(
      [&] { parseOnnxNetwork(computed.bytes(), "computed.onnx"); },
      {"computed.onnx: ONNX node 1 'c' (Conv): kernel_shape: not given, and weight 'rw' is no "
       "initializer or graph input with a fixed shape"});
}

TEST(OnnxNetworkMalformed, BrokenFilesAndModelsGiveOneLine) {
  Model good;
  good.input("x", {1, 3, 8, 8});
  good.weight("w", {4, 3, 3, 3});
  setInts(good.node("Conv", {"x", "w"}, {"c"}), "kernel_shape", {3, 3});
  good.output("c");
  const test::TempDir dir;
  const std::string bytes = good.bytes();
  test::writeBytes(dir.file("half.onnx"), bytes.substr(0, bytes.size() / 2));
  expectOneLineInputError([&] { loadOnnxNetwork(dir.file("half.onnx")); },
                          {dir.file("half.onnx") + ": not an ONNX model (protobuf cannot parse it"});
  test::writeBytes(dir.file("text.onnx"), "{\"node_list\": []}\n");
  expectOneLineInputError([&] { loadOnnxNetwork(dir.file("text.onnx")); }, {dir.file("text.onnx") + ": "});
  test::writeBytes(dir.file("empty.onnx"), "");
  expectOneLineInputError([&] { loadOnnxNetwork(dir.file("empty.onnx")); },
                          {dir.file("empty.onnx") + ": graph: the model has no graph nodes"});
  expectOneLineInputError([&] { loadOnnxNetwork(dir.file("none.onnx")); },
                          {dir.file("none.onnx") + ": cannot open model file"});
  expectOneLineInputError([&] { loadOnnxNetwork(dir.path()); }, {dir.path() + ": ", "is a directory"});

  Model wrongChannels = good;
  wrongChannels.weight("w2", {4, 5, 3, 3});
  setInts(wrongChannels.node("Conv", {"c", "w2"}, {"c2"}), "kernel_shape", {3, 3});
  expectOneLineInputError(
      [&] { parseOnnxNetwork(wrongChannels.bytes(), "bad.onnx"); },
      {"bad.onnx: ONNX node 1 'c2' (Conv): input: the weight 4x5x3x3 with group 1 reads 5 "
       "channels, but the input 1x4x6x6 has 4"});
  Model mismatch;
  mismatch.input("a", {1, 2});
  mismatch.input("b", {1, 3});
  mismatch.node("Add", {"a", "b"}, {"s"});
  expectOneLineInputError([&] { parseOnnxNetwork(mismatch.bytes(), "add.onnx"); },
                          {"add.onnx: ONNX shape inference: "});
  Model zeroStride = good;  // ONNX 1.12's inference would divide by it (SIGFPE inside libonnx)
  auto& pool = zeroStride.node("MaxPool", {"c"}, {"p\nq"});  // a name no message may print raw
  setInts(pool, "kernel_shape", {2, 2});
  setInts(pool, "strides", {0, 1});
  expectOneLineInputError([&] { parseOnnxNetwork(zeroStride.bytes(), "zero.onnx"); },
                          {"zero.onnx: ONNX node 1 'p\\x0aq' (MaxPool): strides: 0 is below 1"});
  Model dangling;
  dangling.input("x", {1, 2});
  dangling.node("Add", {"x", "ghost"}, {"y"});
  expectOneLineInputError(
      [&] { parseOnnxNetwork(dangling.bytes(), "ghost.onnx"); },
      {"ghost.onnx: ONNX node 0 'y' (Add): input: tensor 'ghost' comes from no earlier node"});
  Model dynamic;
  dynamic.input("x", {1, 3, -1, 8});  // a dynamic height stays unknown (only the batch becomes 1)
  dynamic.weight("w", {4, 3, 3, 3});
  setInts(dynamic.node("Conv", {"x", "w"}, {"c"}), "kernel_shape", {3, 3});
  expectOneLineInputError([&] { parseOnnxNetwork(dynamic.bytes(), "dyn.onnx"); },
                          {"dyn.onnx: ONNX node 0 'c' (Conv): input: the shape of tensor 'x' is unknown"});
  Model channelPad;
  channelPad.input("x", {1, 2, 4, 4});
  channelPad.ints("pads", {0, 1, 0, 0, 0, 0, 0, 0});
  channelPad.weight("w", {2, 3, 1, 1});
  channelPad.node("Pad", {"x", "pads"}, {"xp"});
  channelPad.node("Conv", {"xp", "w"}, {"c"});
  expectOneLineInputError([&] { parseOnnxNetwork(channelPad.bytes(), "cpad.onnx"); },
                          {"cpad.onnx: ONNX node 0 'xp' (Pad): pads: pads the batch or channel axis"});
}

}  // namespace
