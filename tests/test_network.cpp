// SPDX-License-Identifier: Apache-2.0
// Networks as data (engine/kernel/network.h, issues 19 and 20): the shipped node lists load and hold the
// layers the spec names (ResNet-18 node by node, ResNet-34, VGG-16, GoogLeNet, ResNet-50 v1.5, MobileNet-v1,
// LeNet-5), their conv layers' loop bounds and MAC totals agree with the published figures and with the
// crossbar spec's calibration
// points (which were derived from PIMCOMP-NN's own files), and every malformed node list is refused with
// one line naming the node and the field.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/common/error.h"
#include "engine/kernel/network.h"

namespace {

using namespace pim;
using nlohmann::json;

const Network& shipped(const std::string& name) {
  static std::map<std::string, Network> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, loadNetworkFile(builtinNetworkPath(name))).first;
  return it->second;
}

int countOp(const Network& net, NetworkOp op) {
  int n = 0;
  for (const NetworkNode& x : net.nodes) n += x.op == op ? 1 : 0;
  return n;
}

std::int64_t totalMacs(const Network& net) {
  std::int64_t total = 0;
  for (const ConvLayerShape& l : convLayers(net)) total += convLayerMacs(l);
  return total;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// `text` is refused with one line holding every needle.
void expectRefused(const std::string& text, std::initializer_list<std::string> needles) {
  const std::string msg = errorOf([&] { parseNetworkJson(text, "net.json"); });
  for (const std::string& n : needles)
    EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg << "\nexpected to contain: " << n;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

// A five-node network written the way PIMCOMP-NN writes one: the input without input_dim or provider
// names, the output without consumer names, the conv without dilation or group.
const char* const kTiny = R"({"node_list": [
 {"index": 0, "name": "data", "operation": "OP_INPUT", "provider_num": 0, "provider_index": [],
  "consumer_num": 1, "consumer": ["conv"], "consumer_index": [1], "output_dim_num": 4,
  "output_dim": [1, 3, 8, 8], "bitwidth": 16, "new_node_index": 0},
 {"index": 1, "name": "conv", "operation": "OP_CONV", "provider_num": 1, "provider": ["data"],
  "provider_index": [0], "consumer_num": 1, "consumer": ["pool"], "consumer_index": [2],
  "input_dim_num": 4, "input_dim": [1, 3, 8, 8], "output_dim_num": 4, "output_dim": [1, 4, 4, 4],
  "with_bn": 1, "with_act": 1, "act_type": 0, "bitwidth": 16,
  "param": {"kernel_h": 3, "kernel_w": 3, "stride_h": 2, "stride_w": 2, "pad_h0": 1, "pad_h1": 1,
            "pad_w0": 1, "pad_w1": 1, "input_channel": 3, "output_channel": 4, "with_bias": 0}},
 {"index": 2, "name": "pool", "operation": "OP_POOL", "provider_num": 1, "provider": ["conv"],
  "provider_index": [1], "consumer_num": 1, "consumer": ["flat"], "consumer_index": [3],
  "input_dim_num": 4, "input_dim": [1, 4, 4, 4], "output_dim_num": 4, "output_dim": [1, 4, 1, 1],
  "bitwidth": 16, "param": {"kernel_h": 4, "kernel_w": 4, "stride_h": 1, "stride_w": 1, "pad_h0": 0,
  "pad_h1": 0, "pad_w0": 0, "pad_w1": 0, "pool_method": 1, "global": 1}},
 {"index": 3, "name": "flat", "operation": "OP_FLATTEN", "provider_num": 1, "provider": ["pool"],
  "provider_index": [2], "consumer_num": 1, "consumer": ["fc"], "consumer_index": [4],
  "input_dim_num": 4, "input_dim": [1, 4, 1, 1], "output_dim_num": 2, "output_dim": [1, 4], "bitwidth": 16},
 {"index": 4, "name": "fc", "operation": "OP_FC", "provider_num": 1, "provider": ["flat"],
  "provider_index": [3], "consumer_num": 0, "consumer_index": [], "input_dim_num": 2, "input_dim": [1, 4],
  "output_dim_num": 2, "output_dim": [1, 10], "bitwidth": 16,
  "param": {"num_input": 4, "num_output": 10, "with_bias": 1}}],
 "reshape_info": {"name": "fc", "input_dim": [1, 4, 1, 1], "output_dim": [1, 4]}})";

// kTiny with `edit` applied.
std::string tiny(const std::function<void(json&)>& edit) {
  json j = json::parse(kTiny);
  edit(j);
  return j.dump();
}

TEST(Network, ShippedNetworksAreListedAndLoad) {
  EXPECT_EQ(builtinNetworkNames(), (std::vector<std::string>{"googlenet", "lenet5", "mobilenet_v1",
                                                             "resnet18", "resnet34", "resnet50", "vgg16"}));
  for (const std::string& name : builtinNetworkNames()) {
    const Network& net = shipped(name);
    EXPECT_EQ(net.origin, builtinNetworkPath(name));
    EXPECT_TRUE(net.origin.ends_with("/networks/" + name + ".json")) << net.origin;
    // ImageNet at 224 x 224 into 1000 classes, but LeNet-5 (MNIST, 10 classes); GoogLeNet ends in a softmax.
    const bool mnist = name == "lenet5";
    EXPECT_EQ(net.nodes.front().op, NetworkOp::Input) << name;
    EXPECT_EQ(net.nodes.front().output_dim,
              (mnist ? std::vector<std::int64_t>{1, 1, 28, 28} : std::vector<std::int64_t>{1, 3, 224, 224}))
        << name;
    EXPECT_EQ(net.nodes.back().op, name == "googlenet" ? NetworkOp::Softmax : NetworkOp::Fc) << name;
    EXPECT_EQ(net.nodes.back().output_dim, (std::vector<std::int64_t>{1, mnist ? 10 : 1000})) << name;
    ASSERT_TRUE(net.reshape_info) << name;
    EXPECT_NE(net.find(net.reshape_info->name), nullptr) << name;
    EXPECT_LT(std::filesystem::file_size(builtinNetworkPath(name)), 200u * 1024) << name;
  }
  const std::string unknown = errorOf([] { builtinNetworkPath("alexnet"); });
  EXPECT_NE(unknown.find("network 'alexnet': not a shipped network (known: googlenet, lenet5, mobilenet_v1"),
            std::string::npos)
      << unknown;
  // A name is never a path out of the directory.
  EXPECT_NE(errorOf([] { builtinNetworkPath("../networks/resnet18"); }).find("not a shipped network"),
            std::string::npos);
}

TEST(Network, ResNet18IsTheSpecTable) {
  const Network& net = shipped("resnet18");
  ASSERT_EQ(net.nodes.size(), 41u);
  EXPECT_EQ(countOp(net, NetworkOp::Conv), 20);
  EXPECT_EQ(countOp(net, NetworkOp::Fc), 1);
  EXPECT_EQ(countOp(net, NetworkOp::Eltwise), 8);
  EXPECT_EQ(countOp(net, NetworkOp::Relu), 8);
  EXPECT_EQ(countOp(net, NetworkOp::Pool), 2);
  EXPECT_EQ(countOp(net, NetworkOp::Flatten), 1);
  EXPECT_EQ(countOp(net, NetworkOp::Input), 1);

  const NetworkNode& conv0 = net.nodes[1];
  EXPECT_EQ(conv0.name, "resnetv15_conv0_fwd");
  EXPECT_EQ(conv0.conv, (ConvParams{.kernel_h = 7,
                                    .kernel_w = 7,
                                    .stride_h = 2,
                                    .stride_w = 2,
                                    .pad_h0 = 3,
                                    .pad_h1 = 3,
                                    .pad_w0 = 3,
                                    .pad_w1 = 3,
                                    .input_channel = 3,
                                    .output_channel = 64}));
  EXPECT_EQ(conv0.output_dim, (std::vector<std::int64_t>{1, 64, 112, 112}));
  EXPECT_TRUE(conv0.with_bn && conv0.with_act);
  EXPECT_EQ(conv0.act_type, ActType::Relu);
  EXPECT_EQ(net.nodes[2].pool, (PoolParams{.kernel_h = 3,
                                           .kernel_w = 3,
                                           .stride_h = 2,
                                           .stride_w = 2,
                                           .pad_h0 = 1,
                                           .pad_h1 = 1,
                                           .pad_w0 = 1,
                                           .pad_w1 = 1}));
  EXPECT_EQ(net.nodes[2].consumers, (std::vector<int>{3, 5}));
  EXPECT_EQ(net.nodes[5].name, "resnetv15_stage1__plus0");
  EXPECT_EQ(net.nodes[5].providers, (std::vector<int>{2, 4}));
  EXPECT_FALSE(net.nodes[4].with_act);  // relu on conv0 of a block only

  // Stage 2: the 1x1 s2 downsample listed first as conv2, then the block's 3x3 s2 conv0.
  EXPECT_EQ(net.nodes[11].name, "resnetv15_stage2_conv2_fwd");
  EXPECT_EQ(net.nodes[11].conv.kernel_h, 1);
  EXPECT_EQ(net.nodes[11].conv.stride_h, 2);
  EXPECT_EQ(net.nodes[11].providers, (std::vector<int>{10}));
  EXPECT_EQ(net.nodes[12].name, "resnetv15_stage2_conv0_fwd");
  EXPECT_EQ(net.nodes[12].output_dim, (std::vector<std::int64_t>{1, 128, 28, 28}));
  EXPECT_EQ(net.nodes[14].providers, (std::vector<int>{11, 13}));
  EXPECT_EQ(net.nodes[10].consumers, (std::vector<int>{11, 12}));
  EXPECT_EQ(net.nodes[29].name, "resnetv15_stage4_conv2_fwd");
  EXPECT_EQ(net.nodes[37].output_dim, (std::vector<std::int64_t>{1, 512, 7, 7}));

  EXPECT_TRUE(net.nodes[38].pool.global);
  EXPECT_EQ(net.nodes[38].pool.method, PoolMethod::Average);
  EXPECT_EQ(net.nodes[38].pool.kernel_h, 7);
  EXPECT_EQ(net.nodes[39].name, "flatten_170");
  EXPECT_EQ(net.nodes[39].output_dim, (std::vector<std::int64_t>{1, 512}));
  const NetworkNode& fc = net.nodes[40];
  EXPECT_EQ(fc.name, "resnetv15_dense0_fwd");
  EXPECT_EQ(fc.fc, (FcParams{.num_input = 512, .num_output = 1000, .with_bias = true}));
  EXPECT_TRUE(fc.consumers.empty());
  for (const NetworkNode& n : net.nodes)
    if (n.op == NetworkOp::Conv) {
      EXPECT_FALSE(n.conv.with_bias) << n.name;
    }
  EXPECT_EQ(net.reshape_info->name, "resnetv15_dense0_fwd");
  EXPECT_EQ(net.reshape_info->input_dim, (std::vector<std::int64_t>{1, 512, 1, 1}));
}

TEST(Network, Vgg16ResNet50AndMobileNetHaveTheirLayers) {
  const Network& vgg = shipped("vgg16");
  EXPECT_EQ(vgg.nodes.size(), 27u);
  EXPECT_EQ(countOp(vgg, NetworkOp::Conv), 13);
  EXPECT_EQ(countOp(vgg, NetworkOp::Fc), 3);
  EXPECT_EQ(countOp(vgg, NetworkOp::Pool), 5);
  EXPECT_EQ(countOp(vgg, NetworkOp::Dropout), 2);
  EXPECT_EQ(vgg.find("vgg0_dense0_fwd")->fc.num_input, 25088);
  EXPECT_EQ(vgg.reshape_info->input_dim, (std::vector<std::int64_t>{1, 512, 7, 7}));

  const Network& r50 = shipped("resnet50");
  EXPECT_EQ(r50.nodes.size(), 90u);
  EXPECT_EQ(countOp(r50, NetworkOp::Conv), 53);
  EXPECT_EQ(countOp(r50, NetworkOp::Fc), 1);
  EXPECT_EQ(countOp(r50, NetworkOp::Eltwise), 16);
  // v1.5: the stride sits on the 3x3; the projection (conv3) is listed first.
  EXPECT_EQ(r50.find("resnetv15_stage2_conv0_fwd")->conv.stride_h, 1);
  EXPECT_EQ(r50.find("resnetv15_stage2_conv1_fwd")->conv.stride_h, 2);
  EXPECT_EQ(r50.find("resnetv15_stage2_conv1_fwd")->conv.kernel_h, 3);
  EXPECT_LT(r50.find("resnetv15_stage2_conv3_fwd")->index, r50.find("resnetv15_stage2_conv0_fwd")->index);
  EXPECT_EQ(r50.find("resnetv15_dense0_fwd")->fc.num_input, 2048);

  const Network& mob = shipped("mobilenet_v1");
  EXPECT_EQ(countOp(mob, NetworkOp::Conv), 27);
  EXPECT_EQ(countOp(mob, NetworkOp::Fc), 1);
  int depthwise = 0;
  for (const NetworkNode& n : mob.nodes)
    if (n.op == NetworkOp::Conv && n.conv.group > 1) {
      ++depthwise;
      EXPECT_EQ(n.conv.group, n.conv.input_channel) << n.name;
      EXPECT_EQ(n.conv.group, n.conv.output_channel) << n.name;
      EXPECT_EQ(n.conv.kernel_h, 3) << n.name;
    }
  EXPECT_EQ(depthwise, 13);
  EXPECT_EQ(mob.nodes.back().fc, (FcParams{.num_input = 1024, .num_output = 1000, .with_bias = true}));
}

// ResNet-34, GoogLeNet and LeNet-5 as crossbar.md describes them (the first two node by node equal to
// PIMCOMP-NN's files, scripts/make_networks.py).
TEST(Network, ResNet34GoogLeNetAndLeNet5HaveTheirLayers) {
  const Network& r34 = shipped("resnet34");
  EXPECT_EQ(r34.nodes.size(), 73u);
  EXPECT_EQ(countOp(r34, NetworkOp::Conv), 36);
  EXPECT_EQ(countOp(r34, NetworkOp::Eltwise), 16);
  EXPECT_EQ(countOp(r34, NetworkOp::Relu), 16);
  // Blocks 3-4-6-3: the stride-2 1x1 downsample listed first in stages 2-4 as conv2.
  EXPECT_EQ(r34.nodes[15].name, "resnetv16_stage2_conv2_fwd");
  EXPECT_EQ(r34.nodes[15].conv.kernel_h, 1);
  EXPECT_EQ(r34.nodes[15].conv.stride_h, 2);
  EXPECT_EQ(r34.nodes[16].name, "resnetv16_stage2_conv0_fwd");
  EXPECT_EQ(r34.find("resnetv16_stage3_conv12_fwd")->output_dim, (std::vector<std::int64_t>{1, 256, 14, 14}));
  EXPECT_EQ(r34.nodes[71].name, "flatten_306");
  EXPECT_EQ(r34.reshape_info->name, "resnetv16_dense0_fwd");

  const Network& g = shipped("googlenet");
  EXPECT_EQ(g.nodes.size(), 87u);
  EXPECT_EQ(countOp(g, NetworkOp::Conv), 57);
  EXPECT_EQ(countOp(g, NetworkOp::Pool), 14);
  EXPECT_EQ(countOp(g, NetworkOp::Lrn), 2);
  EXPECT_EQ(countOp(g, NetworkOp::Concat), 9);
  EXPECT_EQ(countOp(g, NetworkOp::Reshape), 1);
  // Caffe's ceil-mode pool as pads 0 (top, left) and 2 (bottom, right).
  const PoolParams& pool1 = g.find("pool1/3x3_s2_1")->pool;
  EXPECT_EQ(std::vector<std::int64_t>({pool1.pad_h0, pool1.pad_h1, pool1.pad_w0, pool1.pad_w1}),
            (std::vector<std::int64_t>{0, 2, 0, 2}));
  const NetworkNode& cat = *g.find("inception_3a/output_1");
  std::vector<std::string> branches;
  for (int p : cat.providers) branches.push_back(g.nodes[p].name);
  EXPECT_EQ(branches, (std::vector<std::string>{"inception_3a/1x1_1", "inception_3a/3x3_1",
                                                "inception_3a/5x5_1", "inception_3a/pool_proj_1"}));
  EXPECT_EQ(cat.output_dim, (std::vector<std::int64_t>{1, 256, 28, 28}));
  EXPECT_FALSE(g.find("pool5/7x7_s1_1")->pool.global);
  EXPECT_EQ(g.find("loss3/classifier_1")->fc,
            (FcParams{.num_input = 1024, .num_output = 1000, .with_bias = true}));
  EXPECT_EQ(g.reshape_info->input_dim, (std::vector<std::int64_t>{1, 1024, 1, 1}));

  const Network& lenet = shipped("lenet5");
  EXPECT_EQ(lenet.nodes.size(), 9u);
  std::vector<std::pair<std::int64_t, std::int64_t>> fcs;
  for (const NetworkNode& n : lenet.nodes)
    if (n.op == NetworkOp::Fc) fcs.emplace_back(n.fc.num_input, n.fc.num_output);
  EXPECT_EQ(fcs, (std::vector<std::pair<std::int64_t, std::int64_t>>{{400, 120}, {120, 84}, {84, 10}}));
  EXPECT_EQ(lenet.find("lenet0_conv0_fwd")->output_dim, (std::vector<std::int64_t>{1, 6, 28, 28}));
  EXPECT_TRUE(lenet.find("lenet0_dense1_fwd")->with_act);
  EXPECT_FALSE(lenet.find("lenet0_dense2_fwd")->with_act);
  EXPECT_EQ(lenet.reshape_info->input_dim, (std::vector<std::int64_t>{1, 16, 5, 5}));
}

TEST(ConvLayers, GiveTheSevenLoopBoundsOfEveryConvAndFc) {
  const std::vector<ConvLayerShape> r18 = convLayers(shipped("resnet18"));
  ASSERT_EQ(r18.size(), 21u);
  EXPECT_EQ(r18[0], (ConvLayerShape{.name = "resnetv15_conv0_fwd",
                                    .R = 7,
                                    .S = 7,
                                    .P = 112,
                                    .Q = 112,
                                    .C = 3,
                                    .K = 64,
                                    .N = 1,
                                    .stride_w = 2,
                                    .stride_h = 2,
                                    .pad_w0 = 3,
                                    .pad_w1 = 3,
                                    .pad_h0 = 3,
                                    .pad_h1 = 3}));
  EXPECT_EQ(r18[5], (ConvLayerShape{.name = "resnetv15_stage2_conv2_fwd",
                                    .R = 1,
                                    .S = 1,
                                    .P = 28,
                                    .Q = 28,
                                    .C = 64,
                                    .K = 128,
                                    .N = 1,
                                    .stride_w = 2,
                                    .stride_h = 2}));
  EXPECT_EQ(r18[20], (ConvLayerShape{.name = "resnetv15_dense0_fwd", .C = 512, .K = 1000}));

  const std::vector<ConvLayerShape> vgg = convLayers(shipped("vgg16"));
  ASSERT_EQ(vgg.size(), 16u);
  EXPECT_EQ(vgg[12], (ConvLayerShape{.name = "vgg0_conv12_fwd",
                                     .R = 3,
                                     .S = 3,
                                     .P = 14,
                                     .Q = 14,
                                     .C = 512,
                                     .K = 512,
                                     .N = 1,
                                     .pad_w0 = 1,
                                     .pad_w1 = 1,
                                     .pad_h0 = 1,
                                     .pad_h1 = 1}));
  EXPECT_EQ(vgg[13].C, 25088);
  EXPECT_EQ(vgg[13].K, 4096);

  const std::vector<ConvLayerShape> mob = convLayers(shipped("mobilenet_v1"));
  ASSERT_EQ(mob.size(), 28u);
  EXPECT_EQ(mob[1], (ConvLayerShape{.name = "mobilenet0_conv1_fwd",
                                    .R = 3,
                                    .S = 3,
                                    .P = 112,
                                    .Q = 112,
                                    .C = 32,
                                    .K = 32,
                                    .N = 1,
                                    .pad_w0 = 1,
                                    .pad_w1 = 1,
                                    .pad_h0 = 1,
                                    .pad_h1 = 1,
                                    .group = 32}));
  EXPECT_EQ(convLayerMacs(mob[1]), 3 * 3 * 112 * 112 * 32);  // depthwise: one input channel per output
  EXPECT_EQ(mob[2].R, 1);
  EXPECT_EQ(mob[2].K, 64);
}

TEST(ConvLayers, MacTotalsMatchThePublishedFigures) {
  // Exact totals of the shipped shapes, each within 2% of the figure usually published. GoogLeNet's is the
  // sum of Szegedy et al.'s Table 1 (1.50 G) with conv1 at 7*7*3*64*112*112 = 118 M instead of the table's
  // 34 M; LeNet-5's (this 28 x 28 variant) is 117,600 + 240,000 (convs) + 48,000 + 10,080 + 840 (FCs).
  const std::map<std::string, std::pair<std::int64_t, double>> expected{
      {"resnet18", {1'814'073'344, 1.82e9}}, {"resnet34", {3'663'761'408, 3.6e9}},
      {"vgg16", {15'470'264'320, 15.5e9}},   {"googlenet", {1'582'671'872, 1.586e9}},
      {"resnet50", {4'089'184'256, 4.1e9}},  {"mobilenet_v1", {568'740'352, 569e6}},
      {"lenet5", {416'520, 416'520}},
  };
  for (const auto& [name, macs] : expected) {
    const std::int64_t total = totalMacs(shipped(name));
    EXPECT_EQ(total, macs.first) << name;
    EXPECT_LT(std::abs(static_cast<double>(total) - macs.second), 0.02 * macs.second) << name;
  }
}

// crossbar.md's figures derived from PIMCOMP-NN's files: the MVM count of ResNet-18 at 128 rows, its
// logical 512 x 1024 arrays, VGG-16's logical 128 x 128 arrays. Equal counts mean equal layer shapes.
TEST(ConvLayers, ReproduceTheCrossbarSpecCalibrationPoints) {
  auto ceilDiv = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  auto count = [&](const std::string& name, std::int64_t rows, std::int64_t cols) {
    std::int64_t mvms = 0, arrays = 0;
    for (const ConvLayerShape& l : convLayers(shipped(name))) {
      const std::int64_t height = l.R * l.S * l.C;  // an FC's R = S = 1, P = Q = 1
      mvms += l.P * l.Q * ceilDiv(height, rows);
      arrays += ceilDiv(height, rows) * ceilDiv(l.K, cols);
    }
    return std::pair{mvms, arrays};
  };
  EXPECT_EQ(count("resnet18", 128, 128).first, 132'500);
  EXPECT_EQ(count("resnet18", 512, 1024).second, 74);
  EXPECT_EQ(count("vgg16", 128, 128).second, 8'454);
}

TEST(Network, PimcompStyleOmissionsLoadWithTheirDefaults) {
  const Network net = parseNetworkJson(kTiny, "net.json");
  ASSERT_EQ(net.nodes.size(), 5u);
  EXPECT_EQ(net.nodes[0].input_dim, net.nodes[0].output_dim);
  EXPECT_EQ(net.nodes[1].conv.dilation_h, 1);
  EXPECT_EQ(net.nodes[1].conv.group, 1);
  EXPECT_FALSE(net.nodes[4].with_bn);
  EXPECT_EQ(net.nodes[4].act_type, ActType::None);
  EXPECT_EQ(net.nodes[4].eltwise, EltwiseType::Add);
  const Network bare = parseNetworkJson(tiny([](json& j) { j.erase("reshape_info"); }), "net.json");
  EXPECT_FALSE(bare.reshape_info);
}

// $PIMSCOPE_DATA moves the shipped networks with the rest of the data (dataDir()'s rule).
TEST(Network, TheDataDirectoryVariableMovesTheShippedNetworks) {
  std::string dir = testing::TempDir() + "pimscope-networks-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  std::filesystem::create_directory(dir + "/networks");
  std::ofstream(dir + "/networks/tiny.json") << kTiny;
  const char* old = std::getenv("PIMSCOPE_DATA");
  const std::string saved = old ? old : "";
  setenv("PIMSCOPE_DATA", dir.c_str(), 1);
  EXPECT_EQ(builtinNetworkNames(), std::vector<std::string>{"tiny"});
  EXPECT_EQ(builtinNetworkPath("tiny"), dir + "/networks/tiny.json");
  EXPECT_EQ(loadNetworkFile(builtinNetworkPath("tiny")).nodes.size(), 5u);
  if (old)
    setenv("PIMSCOPE_DATA", saved.c_str(), 1);
  else
    unsetenv("PIMSCOPE_DATA");
  std::filesystem::remove_all(dir);
}

TEST(NetworkMalformed, DocumentAndFieldErrorsNameTheNodeAndField) {
  expectRefused(R"({"nodes": []})", {"net.json: node_list: missing"});
  expectRefused(R"({"node_list": {}})", {"net.json: node_list: must be an array"});
  expectRefused(R"([1, 2])", {"net.json: must be a JSON object"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["param"]["kernel_h"] = "3"; }),
                {"net.json: node 1 'conv': param.kernel_h: must be an integer, got \"3\""});
  expectRefused(tiny([](json& j) { j["node_list"][1]["param"].erase("stride_w"); }),
                {"node 1 'conv': param.stride_w: missing"});
  expectRefused(tiny([](json& j) { j["node_list"][2]["output_dim"] = "1x4x1x1"; }),
                {"node 2 'pool': output_dim: must be an array"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["with_bn"] = 2; }),
                {"node 1 'conv': with_bn: 2 is outside 0..1"});
  expectRefused(tiny([](json& j) { j["node_list"][3]["operation"] = "OP_GELU"; }),
                {"node 3 'flat': operation: unknown operation 'OP_GELU' (known: OP_INPUT, OP_CONV"});
  expectRefused(tiny([](json& j) { j["node_list"][2]["index"] = 3; }),
                {"node 2 'pool': index: 3, but the node is number 2"});
  expectRefused(tiny([](json& j) { j["node_list"][3]["name"] = "pool"; }),
                {"node 3 'pool': name: also the name of node 2"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["output_dim_num"] = 3; }),
                {"node 1 'conv': output_dim_num: 3, but output_dim lists 4 sizes"});
  std::string dup = kTiny;
  dup.replace(dup.find("\"name\": \"conv\""), 14, R"("name": "conv", "name": "conv2")");
  expectRefused(dup, {"net.json: node_list[1].name: duplicate key"});
  expectRefused(std::string(kTiny).substr(0, 200), {"net.json: line ", "invalid JSON"});
}

TEST(NetworkMalformed, LinkErrorsNameTheNodeAndField) {
  expectRefused(tiny([](json& j) { j["node_list"][2]["provider_index"] = {7}; }),
                {"node 2 'pool': provider_index: 7 is not a node (node_list has 5"});
  expectRefused(tiny([](json& j) { j["node_list"][2]["provider_index"] = {-1}; }),
                {"node 2 'pool': provider_index: -1 is not a node"});
  expectRefused(tiny([](json& j) { j["node_list"][2]["provider_num"] = 2; }),
                {"node 2 'pool': provider_num: 2, but provider_index lists 1"});
  expectRefused(tiny([](json& j) { j["node_list"][2]["provider"] = {"data"}; }),
                {"node 2 'pool': provider[0]: 'data', but provider_index[0] is node 1 'conv'"});
  expectRefused(tiny([](json& j) {  // the conv no longer lists the pool as its consumer
                  j["node_list"][1]["consumer_num"] = 0;
                  j["node_list"][1]["consumer"] = json::array();
                  j["node_list"][1]["consumer_index"] = json::array();
                }),
                {"node 2 'pool': provider_index: node 1 'conv' does not list this node as a consumer"});
  expectRefused(tiny([](json& j) {  // the input claims the pool as a consumer too
                  j["node_list"][0]["consumer_num"] = 2, j["node_list"][0]["consumer"] = {"conv", "pool"};
                  j["node_list"][0]["consumer_index"] = {1, 2};
                }),
                {"node 0 'data': consumer_index: node 2 'pool' does not list this node as a provider"});
  // flat and fc feed each other: fc -> flat -> fc.
  expectRefused(tiny([](json& j) {
                  j["node_list"][3]["provider_num"] = 2, j["node_list"][3]["provider"] = {"pool", "fc"};
                  j["node_list"][3]["provider_index"] = {2, 4};
                  j["node_list"][4]["consumer_num"] = 1, j["node_list"][4]["consumer"] = {"flat"};
                  j["node_list"][4]["consumer_index"] = {3};
                }),
                {"node 3 'flat': provider_index: cycle 'flat' -> 'fc' -> 'flat'"});
}

// A provider listed after its consumer: the same graph as kTiny with the flatten moved to the end.
TEST(NetworkMalformed, AProviderAfterItsConsumerIsRefused) {
  json j = json::parse(kTiny);
  json flat = j["node_list"][3], fc = j["node_list"][4];
  flat["index"] = 4, flat["consumer_index"] = {3};
  fc["index"] = 3, fc["provider_index"] = {4};
  j["node_list"][2]["consumer_index"] = {4};
  j["node_list"][3] = fc, j["node_list"][4] = flat;
  expectRefused(j.dump(),
                {"node 3 'fc': provider_index: node 4 'flat' comes after its consumer", "topological order"});
}

TEST(NetworkMalformed, ShapeErrorsNameTheNodeAndField) {
  expectRefused(
      tiny([](json& j) {
        j["node_list"][1]["output_dim"] = {1, 4, 3, 4};
      }),
      {"node 1 'conv': output_dim: 1x4x3x4, but input 1x3x8x8 with kernel 3x3, stride 2x2", "gives 1x4x4x4"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["param"]["input_channel"] = 4; }),
                {"node 1 'conv': param.input_channel: 4, but input_dim 1x3x8x8 has 3"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["param"]["group"] = 2; }),
                {"node 1 'conv': param.group: 2 does not divide input_channel 3"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["param"]["dilation_h"] = 9; }),
                {"node 1 'conv': output_dim: 1x4x4x4", "gives 1x4x0x4"});
  expectRefused(tiny([](json& j) { j["node_list"][4]["param"]["num_input"] = 5; }),
                {"node 4 'fc': param.num_input: 5, but input_dim 1x4 holds 4 features per sample"});
  expectRefused(tiny([](json& j) {
                  j["node_list"][2]["input_dim"] = {1, 4, 4, 5};
                }),
                {"node 2 'pool': input_dim: 1x4x4x5, but provider 1 'conv' outputs 1x4x4x4"});
  expectRefused(tiny([](json& j) {
                  j["node_list"][3]["output_dim"] = {1, 5};
                }),
                {"node 3 'flat': output_dim: 1x5, but OP_FLATTEN keeps the element count"});
  expectRefused(tiny([](json& j) {
                  j["node_list"][0]["output_dim"] = {1, 0, 8, 8};
                }),
                {"node 0 'data': output_dim: 0 is outside 1..2147483648"});
  expectRefused(tiny([](json& j) { j["node_list"][1]["param"]["kernel_w"] = 4294967296; }),
                {"node 1 'conv': param.kernel_w: 4294967296 is outside 1..2147483648"});
  expectRefused(tiny([](json& j) {
                  j["node_list"][0]["output_dim"] = {65536, 65536, 1, 1};
                }),
                {"node 0 'data': output_dim: holds more than 2147483648 elements"});
  // Each tensor is 2^16 elements, but a 1x1 conv 65536 -> 65536 has 2^32 weights.
  expectRefused(R"({"node_list": [
    {"index": 0, "name": "in", "operation": "OP_INPUT", "provider_num": 0, "provider_index": [],
     "consumer_num": 1, "consumer": ["wide"], "consumer_index": [1], "output_dim_num": 4,
     "output_dim": [1, 65536, 1, 1], "bitwidth": 16},
    {"index": 1, "name": "wide", "operation": "OP_CONV", "provider_num": 1, "provider": ["in"],
     "provider_index": [0], "consumer_num": 0, "consumer_index": [], "input_dim_num": 4,
     "input_dim": [1, 65536, 1, 1], "output_dim_num": 4, "output_dim": [1, 65536, 1, 1], "bitwidth": 16,
     "param": {"kernel_h": 1, "kernel_w": 1, "stride_h": 1, "stride_w": 1, "pad_h0": 0, "pad_h1": 0,
               "pad_w0": 0, "pad_w1": 0, "input_channel": 65536, "output_channel": 65536,
               "with_bias": 0}}]})",
                {"net.json: node 1 'wide': param: the layer's weights hold more than 2147483648 elements"});
  expectRefused(tiny([](json& j) { j["reshape_info"]["name"] = "nothing"; }),
                {"net.json: reshape_info.name: 'nothing' is not a node"});
}

TEST(NetworkMalformed, FilesThatAreNotRegularAreRefusedByPath) {
  const std::string dir = std::string(PIMSCOPE_DATA_DIR) + "/networks";
  const std::string msg = errorOf([&] { loadNetworkFile(dir); });
  EXPECT_NE(msg.find(dir + ": "), std::string::npos) << msg;
  EXPECT_NE(msg.find("is a directory, not a network file"), std::string::npos) << msg;
  EXPECT_NE(errorOf([&] {
              loadNetworkFile(dir + "/none.json");
            }).find(dir + "/none.json: cannot open network file"),
            std::string::npos);
}

}  // namespace
