// SPDX-License-Identifier: Apache-2.0
// tcad VII-A's layer grouping for the batch pipeline's first-batch latency, on hand-worked graphs: tcad's
// Fig. 5(b) example (8 layers, 4 groups), a chain that never fits two layers in a period, pass-through nodes
// that are no stage, and end to end (the intended mode's first batch is groups x period, PIMCOMP-NN's layers
// x period).
#include <gtest/gtest.h>

#include "engine/crossbar/layer_grouping.h"
#include "engine/kernel/network.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"

namespace {

using pim::Network;
using pim::NetworkOp;

/// Appends a node with its providers (indices); consumers are not read by the grouping.
void add(Network& net, NetworkOp op, std::vector<int> providers) {
  pim::NetworkNode n;
  n.index = static_cast<int>(net.nodes.size());
  n.name = "n" + std::to_string(n.index);
  n.op = op;
  n.providers = std::move(providers);
  net.nodes.push_back(std::move(n));
}

// tcad Fig. 5(b): CONV-0 sets the period (10); POOL-0 and POOL-1 together take less (3 + 4), CONV-1..3 are
// independent (8 each), the CONCAT and CONV-4 follow. Without grouping 8 stages; with it 4:
// [conv0] [pool0 pool1] [conv1 conv2 conv3 concat (8 + 2 = 10 still fits)] [conv4].
TEST(CrossbarLayerGrouping, TcadFigure5bHasFourGroups) {
  Network net;
  add(net, NetworkOp::Input, {});
  add(net, NetworkOp::Conv, {0});          // 1 conv0
  add(net, NetworkOp::Pool, {1});          // 2 pool0
  add(net, NetworkOp::Pool, {2});          // 3 pool1
  add(net, NetworkOp::Conv, {3});          // 4 conv1
  add(net, NetworkOp::Conv, {3});          // 5 conv2
  add(net, NetworkOp::Conv, {3});          // 6 conv3
  add(net, NetworkOp::Concat, {4, 5, 6});  // 7
  add(net, NetworkOp::Conv, {7});          // 8 conv4
  const std::vector<double> t = {0, 10, 3, 4, 8, 8, 8, 2, 7};
  const auto g = pim::crossbar::groupLayers(net, t, 10);
  EXPECT_EQ(g.layers, 8);
  ASSERT_EQ(g.groups.size(), 4u);
  EXPECT_EQ(g.groups[0], (std::vector<int>{1}));
  EXPECT_EQ(g.groups[1], (std::vector<int>{2, 3}));
  EXPECT_EQ(g.groups[2], (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(g.groups[3], (std::vector<int>{8}));
}

TEST(CrossbarLayerGrouping, AChainOfFullLayersKeepsOneStageEachAndPassThroughsAreNone) {
  Network net;
  add(net, NetworkOp::Input, {});
  add(net, NetworkOp::Conv, {0});
  add(net, NetworkOp::Flatten, {1});  // no stage: its data passes through
  add(net, NetworkOp::Fc, {2});
  add(net, NetworkOp::Fc, {3});
  const auto g = pim::crossbar::groupLayers(net, {0, 6, 0, 6, 12}, 10);  // the last is longer than a period
  EXPECT_EQ(g.layers, 3);
  ASSERT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(g.groups[2], (std::vector<int>{4}));
}

TEST(CrossbarLayerGrouping, TheIntendedModesFirstBatchIsGroupsTimesThePeriod) {
  const pim::Network net = pim::loadNetworkFile(pim::builtinNetworkPath("resnet18"));
  const pim::Backend& b = pim::builtinBackends().get("crossbar-pimcomp");
  pim::NetworkCompileRequest r;
  const auto compatible = pim::compileNetwork(b, net, r);
  EXPECT_EQ(compatible.pipelineLayers, 39);  // every node but the input and the flatten
  EXPECT_EQ(compatible.pipelineStages, compatible.pipelineLayers);
  EXPECT_DOUBLE_EQ(*compatible.firstBatchLatencyNs, 39 * *compatible.periodNs);
  r.timing = pim::crossbar::TimingMode::Intended;
  const auto intended = pim::compileNetwork(b, net, r);
  EXPECT_LT(intended.layerGroups, intended.pipelineLayers);
  EXPECT_EQ(intended.pipelineStages, intended.layerGroups);
  EXPECT_DOUBLE_EQ(*intended.firstBatchLatencyNs,
                   static_cast<double>(intended.layerGroups) * *intended.periodNs);
}

}  // namespace
