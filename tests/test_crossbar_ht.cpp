// SPDX-License-Identifier: Apache-2.0
// The HT (batch pipeline) schedule of the crossbar compiler (engine/crossbar/ht_schedule.h) against
// ../shared/specs/crossbar.md ("Scheduling", "Invariants"; tcad Algorithm 1): a hand-worked network, the
// window unfoldings' AG inputs, post nodes, and the MVM and IG invariants on shipped networks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/crossbar_invariants.h"
#include "tests/crossbar_tiny_network.h"

namespace pim::crossbar::compile_tests {

using test::expectedMvms;

// balance on the tiny network: c1 8 replicas on core 0, c2 replica 0 on core 1, replica 1 split between
// cores 1 (AG 0) and 2, replica 2 between cores 2 and 3 (AG 2). c2's 16 windows go 6, 5, 5 to its replicas
// (core 1 takes ceil(16/3*2) = 11 for two), so 5 + 5 SEND/RECV pairs. 8 IGs (c1: 64 / 8).
TEST(CrossbarHtSchedule, HandWorkedNetwork) {
  const CompilePlan p = tinyPlan("balance");
  EXPECT_EQ(p.layout.usedCrossbars, (std::vector<std::int64_t>{8, 8, 8, 4}));
  CountingSink sink;
  const HtScheduleSummary s = scheduleHt(p, sink);
  EXPECT_EQ(s.instructionGroups, 8);
  EXPECT_EQ(sink.groups, 8);
  EXPECT_EQ(s.mvms, 64 + 16 * 3 + 4 + 1);
  EXPECT_EQ(sink.mvms, expectedMvms(p.network, 64));
  EXPECT_EQ(s.sendRecvPairs, 10);
  EXPECT_EQ(sink.perOpcode[Opcode::Recv], 10);
  EXPECT_EQ(sink.unpairedComms, 0);
  EXPECT_EQ(s.count(Opcode::Vrelu), 64);  // c1's fused ReLU, once per window
  EXPECT_EQ(s.count(Opcode::St), 64 + 16 + 4 + 1);
  std::int64_t total = 0;
  for (std::int64_t n : s.perOpcode) total += n;
  EXPECT_EQ(total, s.instructions);
  // Post nodes: pool, flatten (an empty IG, as in PIMCOMP-NN).
  HtOptions post;
  post.postNodes = true;
  CountingSink withPost;
  EXPECT_EQ(scheduleHt(p, withPost, post).postGroups, 2);
  EXPECT_EQ(withPost.groups, 10);
}

TEST(CrossbarHtSchedule, StopsWhenTheSinkSaysSo) {
  CountingSink stop(3);
  EXPECT_TRUE(scheduleHt(tinyPlan("balance"), stop).cancelled);
  EXPECT_EQ(stop.groups, 3);
}

// What one node's instructions are, by opcode and stage, and whether each LD of a global-memory write
// reads one an ST made before it (an earlier IG, or earlier on its own core's list).
class NodeSink : public xbar::IProgramSink {
 public:
  explicit NodeSink(int node) : m_node(node) {}
  bool group(const xbar::InstructionGroup& ig) override {
    std::map<std::int64_t, std::pair<std::size_t, std::size_t>> madeHere;  // write -> (core, index)
    for (std::size_t c = 0; c < ig.cores.size(); ++c)
      for (std::size_t k = 0; k < ig.cores[c].size(); ++k)
        if (ig.cores[c][k].op == Opcode::St && ig.cores[c][k].globalWrite >= 0)
          madeHere[ig.cores[c][k].globalWrite] = {c, k};
    for (std::size_t c = 0; c < ig.cores.size(); ++c)
      for (std::size_t k = 0; k < ig.cores[c].size(); ++k) {
        const xbar::Instruction& i = ig.cores[c][k];
        if (i.op == Opcode::Ld && i.globalWrite >= 0) {
          const auto here = madeHere.find(i.globalWrite);
          const bool ordered =
              m_made.count(i.globalWrite) ||
              (here != madeHere.end() && (here->second.first != c || here->second.second < k));
          if (!ordered) ++unordered;
        }
        if (i.node == m_node) ++count[{i.op, i.stage}];
        if (i.node == m_node && i.op == Opcode::Ld && i.globalWrite >= 0) ++sums;
        const bool afterSum =
            k > 0 && ig.cores[c][k - 1].op == Opcode::Ld && ig.cores[c][k - 1].globalWrite >= 0;
        if (i.node == m_node && afterSum && i.op == Opcode::Vvadd && i.stage == xbar::Stage::MainC) ++sumAdds;
      }
    for (const auto& [write, where] : madeHere) m_made.insert(write);
    return true;
  }
  std::int64_t of(Opcode op, xbar::Stage stage = xbar::Stage::Other) const {
    const auto it = count.find({op, stage});
    return it == count.end() ? 0 : it->second;
  }
  std::map<std::pair<Opcode, xbar::Stage>, std::int64_t> count;
  // LDs of a write out of order; LDs of the node's partial sums, and the MAIN-C adds right after them.
  std::int64_t unordered = 0, sums = 0, sumAdds = 0;

 private:
  int m_node;
  std::set<std::int64_t> m_made;
};

// c1 (3x3 s1 p1 over 8 x 8, 4 -> 16, bias, ReLU) in the scatter unfoldings on 16 arrays a core: each
// window's blocks are added to their output pixels' sums. Its 64 pixels take 4 (corners), 6 (edges) or 9
// blocks: 484 in all under I,OK2,1 (a window per input pixel); under IK,OK,1 (one per output row and input
// column) each window's 3 column blocks land on 2 (first and last column) or 3 pixels: 8 x 22 = 176.
//  - I,OK2,1: 4 replicas on cores 0-3, 16 windows (two input rows) each. Output row r takes blocks from input
//    rows r-1..r+1, so rows 0 and 7 (16 pixels) sum on one core (LMV of the first block, VVADD of the rest)
//    and rows 1-6 (48 pixels, 2 x 6 + 6 x 9 = 66 blocks a row) in global memory: every block but a pixel's
//    first is added to an LD of the sum so far, 6 x 66 - 48 = 348, and every block but a local pixel's
//    last-but-one is stored, 64 + 348.
//  - IK,OK,1: 8 replicas, 5 on core 0 (40 windows: output rows 0-4) and 3 on core 1 (rows 5-7); a pixel's
//    windows share its output row, so every sum stays on one core.
// Either way each pixel's last block adds the bias (MAIN-B) and applies the ReLU, once per pixel.
TEST(CrossbarHtSchedule, ScatterUnfoldingsAddEachBlockToItsPixelsSum) {
  struct Expected {
    std::string format;
    std::int64_t blocks, localPixels, sumLoads;
  };
  for (const Expected& e : {Expected{"I,OK2,1", 484, 16, 348}, Expected{"IK,OK,1", 176, 64, 0}}) {
    SCOPED_TRACE(e.format);
    CompileOptions o;
    o.unfolding.perLayer["c1"] = e.format;
    const CompilePlan p = compilePlan(tinyNetwork(), tinyAccelerator(2, 2, 16), o);
    NodeSink sink(1);
    const HtScheduleSummary s = scheduleHt(p, sink);
    EXPECT_EQ(sink.of(Opcode::Mvmul, xbar::Stage::Main), 64);
    EXPECT_EQ(sink.of(Opcode::Lmv, xbar::Stage::MainC), e.localPixels);
    EXPECT_EQ(sink.of(Opcode::Vvadd, xbar::Stage::MainC), e.blocks - 64);
    EXPECT_EQ(sink.sums, e.sumLoads);
    EXPECT_EQ(sink.sumAdds, e.sumLoads);
    EXPECT_EQ(sink.of(Opcode::St), 64 + e.sumLoads);
    EXPECT_EQ(sink.of(Opcode::Vvadd, xbar::Stage::MainB), 64);
    EXPECT_EQ(sink.of(Opcode::Vrelu, xbar::Stage::Main), 64);
    EXPECT_EQ(sink.unordered, 0);
    EXPECT_EQ(s.mvms, 64 + 16 * 3 + 4 + 1);  // c2 to fc as in the hand-worked network
  }
  // A band of more arrays than a core holds is refused, naming the layer (blocks are added whole).
  CompileOptions o;
  o.unfolding.perLayer["c1"] = "I,OK2,1";
  const CompilePlan p = compilePlan(tinyNetwork(), tinyAccelerator(2, 2, 8), o);
  CountingSink sink;
  EXPECT_EQ(errorOf([&] { scheduleHt(p, sink); }),
            "tiny: node 1 'c1': unfolding I,OK2,1: a band of 9 arrays is wider than a core, which the HT "
            "schedule runs for whole-window formats only");
}

// What one node's MVMULs multiply, and the MAIN-stage copies and fills that assembled their AGs' inputs.
class PreparationSink : public xbar::IProgramSink {
 public:
  PreparationSink(const CompilePlan& plan, int node) : m_plan(plan), m_node(node) {}
  bool group(const xbar::InstructionGroup& ig) override {
    for (const auto& core : ig.cores) {
      for (const xbar::Instruction& i : core) {
        if (i.node != m_node) continue;
        if (i.op == Opcode::Mvmul) {
          ++mvms;
          agRows += m_plan.layout.ags[i.ag].rows;
        } else if ((i.op == Opcode::Lmv || i.op == Opcode::Lldi) && i.stage == xbar::Stage::Main) {
          prepared += i.elements;
        }
      }
    }
    return true;
  }
  std::int64_t mvms = 0, agRows = 0, prepared = 0;

 private:
  const CompilePlan& m_plan;
  int m_node;
};

// c2 (3x3 s2, 16 -> 32, no bias) in each format the HT schedule runs, on 32-row arrays: the MVM count is
// windows x AGs and every AG input is assembled exactly. Its pieces (one pixel's 16 channels at most) are
// all under 64 elements, so every load is a covering load plus a MAIN copy: the copies and the padding
// fills add up to the rows multiplied.
//   im2col: H 144 -> 5 bands;  I,O,K2: 9 matrices of H 16, 1 band each;  IK,O,K: 3 of H 48, 2 bands each.
TEST(CrossbarHtSchedule, WindowUnfoldingsPrepareEveryAgInput) {
  Accelerator acc = tinyAccelerator(2, 2, 16);
  acc.rows = 32;
  const std::map<std::string, std::int64_t> agsPerReplica = {{"IK2,O,1", 5}, {"I,O,K2", 9}, {"IK,O,K", 6}};
  for (const auto& [format, ags] : agsPerReplica) {
    SCOPED_TRACE(format);
    CompileOptions o;
    o.unfolding.perLayer["c2"] = format;
    const CompilePlan p = compilePlan(tinyNetwork(), acc, o);
    EXPECT_EQ(p.layers[1].agsPerReplica, ags);
    PreparationSink sink(p, 2);
    const HtScheduleSummary s = scheduleHt(p, sink);
    EXPECT_EQ(sink.mvms, 16 * ags);
    EXPECT_EQ(sink.agRows, 16 * 144);
    EXPECT_EQ(sink.prepared, sink.agRows);
    EXPECT_EQ(s.mvms, 64 * 2 + 16 * ags + 4 + 1);  // c1 (H 36) has 2 bands of 32 rows
  }
}

// ResNet-18 on the default accelerator in the two other formats the HT schedule runs: the invariant counted
// from the node list (docs/crossbar.md quotes these counts).
TEST(CrossbarHtSchedule, WindowUnfoldingsOnResNet18) {
  const Network net = loadNetworkFile(builtinNetworkPath("resnet18"));
  for (const auto& [format, mvms] :
       std::vector<std::pair<std::string, std::int64_t>>{{"I,O,K2", 775380}, {"IK,O,K", 208548}}) {
    SCOPED_TRACE(format);
    CompileOptions o;
    o.unfolding.all = format;
    const CompilePlan p = compilePlan(net, defaultAccelerator(), o);
    CountingSink sink;
    scheduleHt(p, sink);
    EXPECT_EQ(sink.mvms, expectedMvms(net, 128, format));
    EXPECT_EQ(sink.mvms, mvms);
    EXPECT_EQ(sink.unpairedComms, 0);
  }
}

// Post nodes on ResNet-18: 2 POOL, 8 ELTWISE, 8 RELU (after the adds, not fused) and the FLATTEN, one IG each
// after the 33 pipeline IGs, on as many cores as they have output pixels (up to all 144).
TEST(CrossbarHtSchedule, PostNodesOnResNet18) {
  const CompilePlan p =
      compilePlan(loadNetworkFile(builtinNetworkPath("resnet18")), defaultAccelerator(), {});
  HtOptions o;
  o.postNodes = true;
  CountingSink sink;
  const HtScheduleSummary s = scheduleHt(p, sink, o);
  EXPECT_EQ(s.instructionGroups, 33);
  EXPECT_EQ(s.postGroups, 19);
  EXPECT_EQ(sink.groups, 33 + 19);
  EXPECT_EQ(sink.unpairedComms, 0);
  // pool0 (3x3 s2 p1 over 112x112 -> 56x56) max-pools with VVMAX: one fewer than its inputs per pixel.
  std::int64_t poolInputs = 0;
  for (std::int64_t oh = 0; oh < 56; ++oh)
    for (std::int64_t ow = 0; ow < 56; ++ow) {
      const auto span = [](std::int64_t o) {
        return std::min<std::int64_t>(112, 2 * o + 2) - std::max<std::int64_t>(0, 2 * o - 1);
      };
      poolInputs += span(oh) * span(ow);
    }
  EXPECT_EQ(s.count(Opcode::Vvmax), poolInputs - 56 * 56);
}

// The spec's invariants on the shipped networks under every method: MVM count (ResNet-18 at 128 rows:
// 132,500), IG count, crossbar accounting, window cap, SEND/RECV pairs within each IG.
TEST(CrossbarHtSchedule, InvariantsOnShippedNetworks) {
  for (const std::string name : {"resnet18", "resnet50", "vgg16"}) {
    const Network net = loadNetworkFile(builtinNetworkPath(name));
    const Accelerator acc = defaultAccelerator(name == "vgg16" ? 16 : 12);
    for (const std::string method : {"balance", "w0h0", "uniform"}) {
      SCOPED_TRACE(name + " " + method);
      CompileOptions o;
      o.replication = method;
      const CompilePlan p = compilePlan(net, acc, o);
      std::int64_t igs = 0, crossbars = 0;
      for (std::size_t i = 0; i < p.layers.size(); ++i) {
        const LayerPartition& l = p.layers[i];
        ASSERT_EQ(l.agp, 1);
        EXPECT_LE(p.replicas[i], l.windows);
        igs = std::max(igs, (l.windows + p.replicas[i] - 1) / p.replicas[i]);
        crossbars += p.replicas[i] * ((l.matrix.h + 127) / 128) * ((l.matrix.w + 127) / 128);
      }
      EXPECT_EQ(p.crossbarsUsed(), crossbars);
      EXPECT_LE(crossbars, acc.cores() * acc.crossbarsPerCore);
      for (std::int64_t used : p.layout.usedCrossbars) EXPECT_LE(used, acc.crossbarsPerCore);
      CountingSink sink;
      const HtScheduleSummary s = scheduleHt(p, sink);
      EXPECT_EQ(sink.mvms, expectedMvms(net, 128));
      if (name == "resnet18") {
        EXPECT_EQ(sink.mvms, 132500);
      }
      EXPECT_EQ(s.mvms, sink.mvms);
      EXPECT_EQ(s.instructionGroups, igs);
      EXPECT_EQ(sink.groups, igs);
      EXPECT_EQ(sink.unpairedComms, 0);
      EXPECT_EQ(sink.perOpcode[Opcode::Send], sink.perOpcode[Opcode::Recv]);
    }
  }
}

}  // namespace pim::crossbar::compile_tests
