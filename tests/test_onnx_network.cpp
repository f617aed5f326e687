// SPDX-License-Identifier: Apache-2.0
// ONNX models as networks (engine/kernel/onnx_network.h, issue 19; ../shared/specs/crossbar.md, "Model input:
// the ONNX-derived node list"): small models written here through the protobuf API load to the same
// pim::Network as the node list PIMCOMP-NN's frontend writes for them (folding, pad merging, Shape-chain
// removal, reshape_info). What the reader refuses is test_onnx_network_malformed.cpp.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/kernel/network.h"
#include "engine/kernel/onnx_network.h"
#include "tests/onnx_model_builder.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using nlohmann::json;
using Dims = std::vector<std::int64_t>;
using test::Model;
using test::setInt;
using test::setInts;
using test::setString;

// The node list the frontend would write, built like scripts/make_networks.py builds one: each node names
// its providers and gets listed as their consumer; input_dim is the first provider's output.
class NodeList {
 public:
  void add(const std::string& name, const std::string& op, std::initializer_list<std::string> providers,
           const Dims& out, json param = nullptr, bool bn = false, int act = -1) {
    json n = {{"index", m_nodes.size()},      {"name", name},
              {"operation", "OP_" + op},      {"output_dim", out},
              {"output_dim_num", out.size()}, {"bitwidth", 16},
              {"provider", json::array()},    {"provider_index", json::array()},
              {"consumer", json::array()},    {"consumer_index", json::array()}};
    for (const auto& p : providers) {
      json& prov = m_nodes.at(m_index.at(p));
      n["provider"].push_back(p);
      n["provider_index"].push_back(m_index.at(p));
      prov["consumer"].push_back(name);
      prov["consumer_index"].push_back(m_nodes.size());
    }
    if (providers.size() > 0) n["input_dim"] = m_nodes.at(m_index.at(*providers.begin()))["output_dim"];
    if (!param.is_null()) n["param"] = std::move(param);
    if (op == "CONV" || op == "FC")
      n.update({{"with_bn", bn ? 1 : 0}, {"with_act", act >= 0 ? 1 : 0}, {"act_type", act}});
    m_index[name] = m_nodes.size();
    m_nodes.push_back(std::move(n));
  }
  Network network(const json& reshapeInfo = nullptr) {
    for (json& n : m_nodes) {
      n["provider_num"] = n["provider"].size();
      n["consumer_num"] = n["consumer"].size();
      if (n.contains("input_dim")) n["input_dim_num"] = n["input_dim"].size();
    }
    json doc = {{"node_list", m_nodes}};
    if (!reshapeInfo.is_null()) doc["reshape_info"] = reshapeInfo;
    return parseNetworkJson(doc.dump(), "expected");
  }

 private:
  std::vector<json> m_nodes;
  std::map<std::string, std::size_t> m_index;
};

json conv(std::int64_t k, std::int64_t s, Dims pads, std::int64_t ci, std::int64_t co, bool bias) {
  return {{"kernel_h", k},
          {"kernel_w", k},
          {"stride_h", s},
          {"stride_w", s},
          {"pad_h0", pads[0]},
          {"pad_h1", pads[1]},
          {"pad_w0", pads[2]},
          {"pad_w1", pads[3]},
          {"input_channel", ci},
          {"output_channel", co},
          {"with_bias", bias ? 1 : 0}};
}
json pool(std::int64_t k, std::int64_t s, Dims pads, int method, bool global = false) {
  return {{"kernel_h", k},         {"kernel_w", k},           {"stride_h", s},     {"stride_w", s},
          {"pad_h0", pads[0]},     {"pad_h1", pads[1]},       {"pad_w0", pads[2]}, {"pad_w1", pads[3]},
          {"pool_method", method}, {"global", global ? 1 : 0}};
}
json fc(std::int64_t in, std::int64_t out) {
  return {{"num_input", in}, {"num_output", out}, {"with_bias", 1}};
}

// Two networks hold the same nodes, links, shapes, parameters and flags (origin aside).
void expectSameNetwork(const Network& got, const Network& want) {
  ASSERT_EQ(got.nodes.size(), want.nodes.size());
  for (std::size_t i = 0; i < got.nodes.size(); ++i) {
    const NetworkNode &a = got.nodes[i], &b = want.nodes[i];
    SCOPED_TRACE("node " + std::to_string(i) + " '" + b.name + "'");
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.op, b.op) << networkOpName(a.op);
    EXPECT_EQ(a.input_dim, b.input_dim);
    EXPECT_EQ(a.output_dim, b.output_dim);
    EXPECT_EQ(a.providers, b.providers);
    EXPECT_EQ(a.consumers, b.consumers);
    EXPECT_EQ(a.conv, b.conv);
    EXPECT_EQ(a.fc, b.fc);
    EXPECT_EQ(a.pool, b.pool);
    EXPECT_EQ(a.eltwise, b.eltwise);
    EXPECT_EQ(a.with_bn, b.with_bn);
    EXPECT_EQ(a.with_act, b.with_act);
    EXPECT_EQ(a.act_type, b.act_type);
    EXPECT_EQ(a.with_clip, b.with_clip);
    EXPECT_EQ(a.bitwidth, b.bitwidth);
  }
  ASSERT_EQ(got.reshape_info.has_value(), want.reshape_info.has_value());
  if (got.reshape_info) {
    EXPECT_EQ(got.reshape_info->name, want.reshape_info->name);
    EXPECT_EQ(got.reshape_info->input_dim, want.reshape_info->input_dim);
    EXPECT_EQ(got.reshape_info->output_dim, want.reshape_info->output_dim);
  }
}

// The ONNX node(s) of one CONV/FC after its folding was undone: BatchNormalization and the activation
// after the Conv/Gemm named `n.name`; returns the tensor the node's consumers read.
std::string unfold(Model& m, const NetworkNode& n) {
  std::string t = n.name;
  if (n.with_bn) {
    for (const char* w : {"_s", "_b", "_m", "_v"}) m.weight(n.name + w, {n.output_dim[1]}, false);
    m.node("BatchNormalization", {t, n.name + "_s", n.name + "_b", n.name + "_m", n.name + "_v"},
           {t + "_bn"});
    t += "_bn";
  }
  if (n.with_act) {
    const std::map<ActType, std::string> acts{
        {ActType::Relu, "Relu"}, {ActType::Tanh, "Tanh"}, {ActType::Sigmoid, "Sigmoid"}};
    m.node(acts.at(n.act_type), {t}, {t + "_act"});
    t += "_act";
  }
  return t;
}

// The ONNX node of node-list node `n` reading tensors `in`, named as `n` (weights dims only).
onnx::NodeProto& layer(Model& m, const NetworkNode& n, std::vector<std::string> in) {
  const std::map<NetworkOp, std::string> plain{
      {NetworkOp::Relu, "Relu"},       {NetworkOp::Tanh, "Tanh"},       {NetworkOp::Sigmoid, "Sigmoid"},
      {NetworkOp::Flatten, "Flatten"}, {NetworkOp::Dropout, "Dropout"}, {NetworkOp::Softmax, "Softmax"},
      {NetworkOp::Concat, "Concat"},   {NetworkOp::Lrn, "LRN"}};
  std::string op = plain.contains(n.op) ? plain.at(n.op) : "";
  if (n.op == NetworkOp::Conv) {
    const ConvParams& c = n.conv;
    m.weight(n.name + "_w", {c.output_channel, c.input_channel / c.group, c.kernel_h, c.kernel_w}, false);
    in.push_back(n.name + "_w");
    if (c.with_bias) m.weight(n.name + "_bias", {c.output_channel}, false), in.push_back(n.name + "_bias");
    op = "Conv";
  }
  if (n.op == NetworkOp::Fc) {
    m.weight(n.name + "_w", {n.fc.num_output, n.fc.num_input}, false);
    m.weight(n.name + "_bias", {n.fc.num_output}, false);
    in.insert(in.end(), {n.name + "_w", n.name + "_bias"});
    op = "Gemm";
  }
  if (n.op == NetworkOp::Pool)
    op = n.pool.global ? "GlobalAveragePool" : n.pool.method == PoolMethod::Max ? "MaxPool" : "AveragePool";
  if (n.op == NetworkOp::Eltwise) op = n.eltwise == EltwiseType::Sub ? "Sub" : "Add";
  if (n.op == NetworkOp::Reshape) {
    m.ints(n.name + "_shape", n.output_dim);
    in.push_back(n.name + "_shape");
    op = "Reshape";
  }
  onnx::NodeProto& node = m.node(op, {}, {n.name});
  for (const auto& x : in) node.add_input(x);
  return node;
}

// The ONNX graph a node list was folded from (PIMCOMP-NN names a node by its first output, so each keeps
// its name).
std::string onnxOf(const Network& net) {
  Model m;
  std::vector<std::string> out(net.nodes.size());  // the tensor each node's consumers read
  for (const NetworkNode& n : net.nodes) {
    out[n.index] = n.name;
    if (n.op == NetworkOp::Input) {
      m.input(n.name, n.output_dim);
      continue;
    }
    std::vector<std::string> in;
    for (int p : n.providers) in.push_back(out[p]);
    onnx::NodeProto& node = layer(m, n, in);
    auto window = [&](const auto& w) {
      setInts(node, "kernel_shape", {w.kernel_h, w.kernel_w});
      setInts(node, "strides", {w.stride_h, w.stride_w});
      setInts(node, "pads", {w.pad_h0, w.pad_w0, w.pad_h1, w.pad_w1});  // ONNX: begins, then ends
    };
    if (n.op == NetworkOp::Conv) {
      window(n.conv);
      setInts(node, "dilations", {n.conv.dilation_h, n.conv.dilation_w});
      setInt(node, "group", n.conv.group);
    }
    if (n.op == NetworkOp::Pool && !n.pool.global) window(n.pool);
    if (n.op == NetworkOp::Fc) setInt(node, "transB", 1);
    if (n.op == NetworkOp::Concat) setInt(node, "axis", 1);
    if (n.op == NetworkOp::Lrn) setInt(node, "size", 5);
    if (n.op == NetworkOp::Conv || n.op == NetworkOp::Fc) out[n.index] = unfold(m, n);
    if (n.consumers.empty()) m.output(out[n.index]);
  }
  return m.bytes();
}

// Every shipped node list, unfolded into the ONNX graph it came from, loads back to itself: the frontend
// rules undo the unfolding and name, link, shape and flag every node as the file does.
TEST(OnnxNetwork, EveryShippedNetworkRoundTripsThroughOnnx) {
  for (const std::string& name : builtinNetworkNames()) {
    SCOPED_TRACE(name);
    const Network shipped = loadNetworkFile(builtinNetworkPath(name));
    expectSameNetwork(parseOnnxNetwork(onnxOf(shipped), name + ".onnx"), shipped);
  }
}

// Conv -> BatchNormalization -> Relu folds into one CONV (with_bn, act_type 0) whose consumer is the Relu's;
// a dynamic batch becomes 1.
TEST(OnnxNetwork, ConvBatchNormAndReluFoldIntoTheConv) {
  Model m;
  m.input("x", {-1, 3, 8, 8});
  m.weight("w", {4, 3, 3, 3});
  m.weight("b", {4});
  for (const char* t : {"scale", "bias", "mean", "var"}) m.weight(t, {4});
  auto& c = m.node("Conv", {"x", "w", "b"}, {"c"});
  setInts(c, "kernel_shape", {3, 3});
  setInts(c, "strides", {2, 2});
  setInts(c, "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"});
  m.node("Relu", {"bn"}, {"r"});
  auto& p = m.node("MaxPool", {"r"}, {"p"});
  setInts(p, "kernel_shape", {2, 2});
  setInts(p, "strides", {2, 2});
  m.output("p");

  NodeList want;
  want.add("x", "INPUT", {}, {1, 3, 8, 8});
  want.add("c", "CONV", {"x"}, {1, 4, 4, 4}, conv(3, 2, {1, 1, 1, 1}, 3, 4, true), true, 0);
  want.add("p", "POOL", {"c"}, {1, 4, 2, 2}, pool(2, 2, {0, 0, 0, 0}, 0));
  const test::TempDir dir;
  expectSameNetwork(loadOnnxNetwork(m.write(dir, "convbn.onnx")), want.network());
}

// An activation stays a node when the conv before it has another consumer (frontend.py's rule).
TEST(OnnxNetwork, AnActivationStaysWhenItsConvFeedsAnotherNode) {
  Model m;
  m.input("x", {1, 2, 4, 4});
  m.weight("w", {2, 2, 1, 1});
  m.node("Conv", {"x", "w"}, {"c"});
  m.node("Sigmoid", {"c"}, {"s"});
  m.node("Mul", {"c", "s"}, {"y"});
  m.output("y");
  NodeList want;
  want.add("x", "INPUT", {}, {1, 2, 4, 4});
  want.add("c", "CONV", {"x"}, {1, 2, 4, 4}, conv(1, 1, {0, 0, 0, 0}, 2, 2, false));
  want.add("s", "SIGMOID", {"c"}, {1, 2, 4, 4});
  want.add("y", "ELTWISE", {"c", "s"}, {1, 2, 4, 4}, {{"eletype", 2}});
  expectSameNetwork(parseOnnxNetwork(m.bytes(), "silu.onnx"), want.network());
}

// A Pad (pads from an initializer or a Constant node) merges into the single-input CONV or POOL after it:
// H and W pads add to the window's, and the window reads the Pad's input.
TEST(OnnxNetwork, APadMergesIntoTheWindowAfterIt) {
  Model m;
  m.input("x", {1, 2, 6, 6});
  m.ints("pads", {0, 0, 1, 2, 0, 0, 3, 0});  // N C H W begins, then ends
  m.weight("w", {3, 2, 3, 3});
  m.node("Pad", {"x", "pads"}, {"xp"});
  auto& c = m.node("Conv", {"xp", "w"}, {"c"});
  setInts(c, "pads", {1, 1, 1, 1});
  m.constant("pads2", {0, 0, 0, 0, 0, 0, 1, 1});
  m.node("Pad", {"c", "pads2"}, {"cp"});
  auto& p = m.node("AveragePool", {"cp"}, {"p"});
  setInts(p, "kernel_shape", {2, 2});
  setInts(p, "strides", {2, 2});
  m.output("p");

  NodeList want;
  want.add("x", "INPUT", {}, {1, 2, 6, 6});
  want.add("c", "CONV", {"x"}, {1, 3, 10, 8}, conv(3, 1, {2, 4, 3, 1}, 2, 3, false));
  want.add("p", "POOL", {"c"}, {1, 3, 5, 4}, pool(2, 2, {0, 1, 0, 1}, 1));
  const test::TempDir dir;
  expectSameNetwork(loadOnnxNetwork(m.write(dir, "pad.onnx")), want.network());
}

// A residual block: the folded Relu's two consumers move to the conv, the add lists both branches in input
// order and the Relu after it stays a node; Sub is eletype 4.
TEST(OnnxNetwork, AResidualAddKeepsItsLinksAndTheReluAfterIt) {
  Model m;
  m.input("x", {1, 4, 4, 4});
  m.weight("wa", {4, 4, 3, 3});
  m.weight("wb", {4, 4, 3, 3});
  for (auto [w, in, out] : {std::tuple{"wa", "x", "a"}, std::tuple{"wb", "ar", "b"}}) {
    auto& c = m.node("Conv", {in, w}, {out});
    setInts(c, "kernel_shape", {3, 3});
    setInts(c, "pads", {1, 1, 1, 1});
    if (std::string(out) == "a") m.node("Relu", {"a"}, {"ar"});
  }
  m.node("Add", {"ar", "b"}, {"s"});
  m.node("Relu", {"s"}, {"y"});
  m.node("Sub", {"y", "x"}, {"d"});
  m.output("d");

  NodeList want;
  want.add("x", "INPUT", {}, {1, 4, 4, 4});
  want.add("a", "CONV", {"x"}, {1, 4, 4, 4}, conv(3, 1, {1, 1, 1, 1}, 4, 4, false), false, 0);
  want.add("b", "CONV", {"a"}, {1, 4, 4, 4}, conv(3, 1, {1, 1, 1, 1}, 4, 4, false));
  want.add("s", "ELTWISE", {"a", "b"}, {1, 4, 4, 4}, {{"eletype", 2}});
  want.add("y", "RELU", {"s"}, {1, 4, 4, 4});
  want.add("d", "ELTWISE", {"y", "x"}, {1, 4, 4, 4}, {{"eletype", 4}});
  expectSameNetwork(parseOnnxNetwork(m.bytes(), "residual.onnx"), want.network());
}

// GlobalAveragePool -> Flatten -> Gemm (+ Tanh, folded as act_type 1) -> Softmax: the pool's kernel is its
// input's H x W, and reshape_info records the flatten in front of the FC.
TEST(OnnxNetwork, AGemmAfterAFlattenIsAnFcWithReshapeInfo) {
  Model m;
  m.input("x", {1, 4, 2, 2});
  m.weight("w", {10, 4});
  m.weight("b", {10});
  m.node("GlobalAveragePool", {"x"}, {"g"});
  m.node("Flatten", {"g"}, {"f"});
  setInt(m.node("Gemm", {"f", "w", "b"}, {"fc"}), "transB", 1);
  m.node("Tanh", {"fc"}, {"t"});
  m.node("Softmax", {"t"}, {"prob"});
  m.output("prob");

  NodeList want;
  want.add("x", "INPUT", {}, {1, 4, 2, 2});
  want.add("g", "POOL", {"x"}, {1, 4, 1, 1}, pool(2, 1, {0, 0, 0, 0}, 1, true));
  want.add("f", "FLATTEN", {"g"}, {1, 4});
  want.add("fc", "FC", {"f"}, {1, 10}, fc(4, 10), false, 1);
  want.add("prob", "SOFTMAX", {"fc"}, {1, 10});
  const test::TempDir dir;
  expectSameNetwork(loadOnnxNetwork(m.write(dir, "gemm.onnx")),
                    want.network({{"name", "fc"}, {"input_dim", {1, 4, 1, 1}}, {"output_dim", {1, 4}}}));
}

// PyTorch's x.view(x.size(0), -1): the Shape -> Gather -> Unsqueeze -> Concat chain goes and the Reshape,
// its shape found by shape inference's data propagation, keeps the data as its only provider.
TEST(OnnxNetwork, AShapeChainInFrontOfAReshapeIsRemoved) {
  Model m;
  m.input("x", {1, 2, 3, 3});
  m.weight("w", {2, 2, 1, 1});
  m.weight("fw", {5, 18});
  m.ints("zero", {0}, true);
  m.ints("axes", {0});
  m.ints("rest", {-1});
  m.node("Conv", {"x", "w"}, {"c"});
  m.node("Shape", {"c"}, {"shape"});
  m.node("Gather", {"shape", "zero"}, {"batch"});
  m.node("Unsqueeze", {"batch", "axes"}, {"batch1"});
  setInt(m.node("Concat", {"batch1", "rest"}, {"target"}), "axis", 0);
  m.node("Reshape", {"c", "target"}, {"flat"});
  setInt(m.node("Gemm", {"flat", "fw"}, {"fc"}), "transB", 1);
  m.output("fc");

  NodeList want;
  want.add("x", "INPUT", {}, {1, 2, 3, 3});
  want.add("c", "CONV", {"x"}, {1, 2, 3, 3}, conv(1, 1, {0, 0, 0, 0}, 2, 2, false));
  want.add("flat", "RESHAPE", {"c"}, {1, 18});
  want.add("fc", "FC", {"flat"}, {1, 5}, {{"num_input", 18}, {"num_output", 5}, {"with_bias", 0}});
  expectSameNetwork(parseOnnxNetwork(m.bytes(), "view.onnx"),
                    want.network({{"name", "fc"}, {"input_dim", {1, 2, 3, 3}}, {"output_dim", {1, 18}}}));
}

// What the frontend reads less of than ONNX allows becomes explicit: auto_pad SAME_UPPER pads (the odd one
// at the end), a ceil-mode pool's extra bottom/right pad, a Conv's kernel from its weight; Concat, LRN and
// Dropout map by the table.
TEST(OnnxNetwork, AutoPadCeilModeAndAMissingKernelShapeBecomeExplicit) {
  Model m;
  m.input("x", {1, 1, 7, 7});
  m.weight("w", {2, 1, 2, 2});
  auto& c = m.node("Conv", {"x", "w"}, {"c"});
  setInts(c, "strides", {2, 2});
  setString(c, "auto_pad", "SAME_UPPER");
  auto& p = m.node("MaxPool", {"c"}, {"p"});
  setInts(p, "kernel_shape", {3, 3});
  setInts(p, "strides", {2, 2});
  setInt(p, "ceil_mode", 1);
  auto& l = m.node("LRN", {"c"}, {"l"});
  setInt(l, "size", 3);
  m.node("Dropout", {"l"}, {"dr"});
  setInt(m.node("Concat", {"dr", "c"}, {"cat"}), "axis", 1);
  m.output("p");
  m.output("cat");

  NodeList want;
  want.add("x", "INPUT", {}, {1, 1, 7, 7});
  want.add("c", "CONV", {"x"}, {1, 2, 4, 4}, conv(2, 2, {0, 1, 0, 1}, 1, 2, false));
  want.add("p", "POOL", {"c"}, {1, 2, 2, 2}, pool(3, 2, {0, 1, 0, 1}, 0));
  want.add("l", "LRN", {"c"}, {1, 2, 4, 4});
  want.add("dr", "DROPOUT", {"l"}, {1, 2, 4, 4});
  want.add("cat", "CONCAT", {"dr", "c"}, {1, 4, 4, 4});
  expectSameNetwork(parseOnnxNetwork(m.bytes(), "windows.onnx"), want.network());
}

// The reader's node list is a document the JSON loader reads: what it writes can be shipped as a .json.
TEST(OnnxNetwork, TheNodeListIsAJsonDocumentTheLoaderReads) {
  Model m;
  m.input("x", {1, 1, 4, 4});
  m.weight("w", {1, 1, 3, 3});
  setInts(m.node("Conv", {"x", "w"}, {"c"}), "kernel_shape", {3, 3});
  m.output("c");
  const json doc = json::parse(onnxNodeListJson(m.bytes(), "tiny.onnx"));
  ASSERT_EQ(doc["node_list"].size(), 2u);
  EXPECT_EQ(doc["node_list"][1]["clip_min"], -10000000);
  EXPECT_EQ(doc["node_list"][1]["act_type"], -1);
  EXPECT_FALSE(doc.contains("reshape_info"));
  EXPECT_EQ(parseNetworkJson(doc.dump(), "tiny.json").nodes[1].output_dim, (Dims{1, 1, 2, 2}));
}

}  // namespace
