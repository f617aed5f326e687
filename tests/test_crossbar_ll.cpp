// SPDX-License-Identifier: Apache-2.0
// Tests of the LL (element pipeline) scheduler (../shared/specs/crossbar.md, "Scheduling", LL and
// "Invariants"; tcad Algorithm 2): the MVM invariant on shipped networks under every replication method,
// SEND/RECV pairing per IG, pixel-level readiness on a hand-built chain, the last node taken from the graph,
// the IG cap option and the local-memory bound.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/crossbar/compile.h"
#include "engine/crossbar/ll_schedule.h"
#include "engine/crossbar/replication.h"
#include "tests/crossbar_invariants.h"

namespace pim::crossbar {
// Named, not anonymous: the unity build may put this file beside another test with helpers of the same names.
namespace ll_tests {

using test::expectedMvms;

using xbar::Opcode;

// Counts what the scheduler emits and checks, IG by IG, that every SEND has its RECV in the same IG with
// mirrored cores and equal length, and that pairing indices are never reused.
class CountingSink : public xbar::IProgramSink {
 public:
  CountingSink() = default;
  // Also checks that the MAIN-stage copies and fills before each MVMUL assemble exactly its AG's input.
  explicit CountingSink(const CompilePlan& plan) : m_plan(&plan) {}

  bool group(const xbar::InstructionGroup& ig) override {
    prepared.assign(ig.cores.size(), 0);
    struct Half {
      int sends = 0, recvs = 0;
      std::int64_t sendCore = -1, sendPeer = -1, recvCore = -1, recvPeer = -1, sendLen = -1, recvLen = -1;
    };
    std::map<std::int64_t, Half> comms;
    for (std::size_t core = 0; core < ig.cores.size(); ++core) {
      for (const xbar::Instruction& inst : ig.cores[core]) {
        ++perOpcode[static_cast<std::size_t>(inst.op)];
        // A spilled input pixel reaches the AG's input by an LD from global memory instead of an LMV.
        if ((inst.op == Opcode::Lmv || inst.op == Opcode::Lldi || inst.op == Opcode::Ld) &&
            inst.stage == xbar::Stage::Main)
          prepared[core] += inst.elements;
        if (inst.op == Opcode::Ld && inst.stage == xbar::Stage::Main) mainLoads += inst.elements;
        if (inst.op == Opcode::Ld && inst.stage == xbar::Stage::Post) postLoads += inst.elements;
        if (inst.op == Opcode::Mvmul) {
          ++mvms;
          agGroups[inst.ag].push_back(groups);
          if (m_plan && prepared[core] != m_plan->layout.ags[inst.ag].rows) ++misprepared;
          prepared[core] = 0;
        } else if (inst.op == Opcode::St) {
          stores[inst.node].push_back(groups);
        } else if (inst.op == Opcode::Send) {
          Half& h = comms[inst.comm];
          ++h.sends, h.sendCore = std::int64_t(core), h.sendPeer = inst.peer, h.sendLen = inst.elements;
        } else if (inst.op == Opcode::Recv) {
          Half& h = comms[inst.comm];
          ++h.recvs, h.recvCore = std::int64_t(core), h.recvPeer = inst.peer, h.recvLen = inst.elements;
        }
      }
    }
    for (const auto& [id, h] : comms) {
      const bool paired = h.sends == 1 && h.recvs == 1 && h.sendPeer == h.recvCore &&
                          h.recvPeer == h.sendCore && h.sendCore != h.recvCore && h.sendLen == h.recvLen &&
                          h.sendLen > 0;
      if (!paired || !seenComms.insert(id).second) ++unpaired;
    }
    ++groups;
    return true;
  }

  std::int64_t groups = 0, mvms = 0, unpaired = 0, misprepared = 0, mainLoads = 0, postLoads = 0;
  std::array<std::int64_t, 12> perOpcode{};
  std::map<std::int64_t, std::vector<std::int64_t>> agGroups;  // AG -> IGs of its MVMULs, in order
  std::map<int, std::vector<std::int64_t>> stores;             // node -> IGs of its STs
  std::set<std::int64_t> seenComms;

 private:
  const CompilePlan* m_plan = nullptr;
  std::vector<std::int64_t> prepared;  // per core: MAIN copy/fill elements since its last MVMUL
};

const Network& shipped(const std::string& name) {
  static std::map<std::string, Network> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, loadNetworkFile(builtinNetworkPath(name))).first;
  return it->second;
}

CompileOptions llCompile(const std::string& replication) {
  CompileOptions o;
  o.mode = PipelineMode::Ll;
  o.replication = replication;
  return o;
}

TEST(CrossbarLl, MvmInvariantOnShippedNetworksUnderEveryReplication) {
  EXPECT_EQ(expectedMvms(shipped("resnet18"), 128), 132500);
  Accelerator large;  // 12 x 12 cores of 256 arrays: VGG-16 fits under every method's rule
  large.crossbarsPerCore = 256;
  for (const std::string name : {"resnet18", "vgg16"}) {
    for (const std::string& method : replicationMethodNames()) {
      SCOPED_TRACE(name + " / " + method);
      const CompilePlan plan = compilePlan(shipped(name), large, llCompile(method));
      CountingSink sink;
      const LlScheduleSummary s = scheduleLl(plan, {}, sink);
      EXPECT_TRUE(s.completed);
      EXPECT_EQ(sink.mvms, expectedMvms(shipped(name), large.rows));
      EXPECT_EQ(s.mvms, sink.mvms);
      EXPECT_EQ(s.instructionGroups, sink.groups);
      EXPECT_EQ(s.perOpcode, sink.perOpcode);
      EXPECT_EQ(sink.unpaired, 0);
      EXPECT_EQ(s.count(Opcode::Send), s.count(Opcode::Recv));
      EXPECT_EQ(s.count(Opcode::St), 1);  // the FC's one output pixel
    }
  }
}

// Every shipped network that fits the default accelerator (PIMCOMP-NN's) completes in its 64 KB of local
// memory with spilling (concatenations in GoogLeNet, element-wise adds in the ResNets, pools everywhere),
// each MVM gets its whole window, and the bound holds.
TEST(CrossbarLl, ShippedNetworksCompleteInTheIntendedLocalMemoryBySpilling) {
  const Accelerator acc;
  LlOptions intended;
  intended.localMemoryElements = llLocalMemoryElements(acc, TimingMode::Intended);
  intended.spillToGlobalMemory = true;
  for (const std::string name : {"lenet5", "googlenet", "mobilenet_v1", "resnet50"}) {
    SCOPED_TRACE(name);
    const CompilePlan plan = compilePlan(shipped(name), acc, llCompile("balance"));
    CountingSink sink(plan);
    const LlScheduleSummary s = scheduleLl(plan, intended, sink);
    EXPECT_TRUE(s.completed);
    EXPECT_EQ(sink.mvms, expectedMvms(shipped(name), acc.rows));
    EXPECT_EQ(sink.misprepared, 0);
    EXPECT_EQ(sink.unpaired, 0);
    for (std::int64_t p : s.localMemoryPeak) EXPECT_LE(p, intended.localMemoryElements);
  }
}

TEST(CrossbarLl, ResNet18OnTheDefaultAccelerator) {
  const CompilePlan plan = compilePlan(shipped("resnet18"), Accelerator{}, llCompile("balance"));
  CountingSink sink(plan);
  const LlScheduleSummary s = scheduleLl(plan, {}, sink);
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.mvms, 132500);
  EXPECT_EQ(s.lastNodes, std::vector<int>{40});
  EXPECT_EQ(sink.misprepared, 0);  // copies merged or not, every AG input is complete
  ASSERT_EQ(sink.stores.size(), 1u);
  EXPECT_EQ(sink.stores.begin()->first, 40);
  EXPECT_EQ(sink.stores.begin()->second, std::vector<std::int64_t>{s.instructionGroups - 1});
  EXPECT_EQ(sink.unpaired, 0);
  std::int64_t total = 0;
  for (std::int64_t n : s.perOpcode) total += n;
  EXPECT_EQ(total, s.instructions);
  ASSERT_EQ(s.localMemoryPeak.size(), 144u);
  EXPECT_LE(s.maxLocalMemoryPeak(), kPimcompNnLocalMemoryElements);
}

// A network description in PIMCOMP-NN's node-list format.
struct NodeSpec {
  std::string name, op;
  std::vector<std::string> providers, consumers;
  std::vector<std::int64_t> in, out;
  std::string extra;  // further fields, ready to paste
};

std::string dims(const std::vector<std::int64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

std::string names(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s + "]";
}

Network networkOf(const std::vector<NodeSpec>& nodes, const std::string& origin) {
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) index[nodes[i].name] = int(i);
  std::string text = "{\"node_list\": [";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeSpec& n = nodes[i];
    std::vector<std::int64_t> pi, ci;
    for (const auto& p : n.providers) pi.push_back(index[p]);
    for (const auto& c : n.consumers) ci.push_back(index[c]);
    text += std::string(i ? ", " : "") + "{\"index\": " + std::to_string(i) + ", \"name\": \"" + n.name +
            "\", \"operation\": \"" + n.op + "\", \"provider_num\": " + std::to_string(pi.size()) +
            ", \"provider\": " + names(n.providers) + ", \"provider_index\": " + dims(pi) +
            ", \"consumer_num\": " + std::to_string(ci.size()) + ", \"consumer\": " + names(n.consumers) +
            ", \"consumer_index\": " + dims(ci) + ", \"input_dim_num\": " + std::to_string(n.in.size()) +
            ", \"input_dim\": " + dims(n.in) + ", \"output_dim_num\": " + std::to_string(n.out.size()) +
            ", \"output_dim\": " + dims(n.out) + ", \"bitwidth\": 16" + n.extra + "}";
  }
  return parseNetworkJson(text + "]}", origin);
}

std::string conv3x3(int in, int out) {
  return ", \"with_bn\": 0, \"with_act\": 0, \"act_type\": -1, \"param\": {\"kernel_h\": 3, \"kernel_w\": 3, "
         "\"stride_h\": 1, \"stride_w\": 1, \"pad_h0\": 1, \"pad_h1\": 1, \"pad_w0\": 1, \"pad_w1\": 1, "
         "\"input_channel\": " +
         std::to_string(in) + ", \"output_channel\": " + std::to_string(out) + ", \"with_bias\": 0}";
}

// data (2 x 4 x 4) -> conv1 -> conv2, both 3 x 3, stride 1, pad 1, 2 -> 2 channels.
Network chain() {
  return networkOf({{"data", "OP_INPUT", {}, {"conv1"}, {1, 2, 4, 4}, {1, 2, 4, 4}, ""},
                    {"conv1", "OP_CONV", {"data"}, {"conv2"}, {1, 2, 4, 4}, {1, 2, 4, 4}, conv3x3(2, 2)},
                    {"conv2", "OP_CONV", {"conv1"}, {}, {1, 2, 4, 4}, {1, 2, 4, 4}, conv3x3(2, 2)}},
                   "tests/chain_net.json");
}

Accelerator small() {
  Accelerator a;
  a.name = "small";
  a.coresX = a.coresY = 2;
  a.crossbarsPerCore = 4;
  return a;
}

// small() with arrays of 4 rows, 64 a core: the hand-worked chain's conv2 in several AGs of any unfolding.
Accelerator fourRows() {
  Accelerator a = small();
  a.crossbarsPerCore = 64;
  a.rows = 4;
  return a;
}

CompileOptions conv2In(const std::string& format) {
  CompileOptions o;
  o.mode = PipelineMode::Ll;
  o.replication = "balance";
  o.unfolding.perLayer["conv2"] = format;
  return o;
}

// conv1 has one replica (core 0) and, as the first layer, is always ready: it computes pixel k in IG k. Its
// pixel reaches conv2 at the end of that IG. conv2 has two replicas (cores 1 and 2): replica r computes
// pixels r, r + 2, ... one per IG, each once every conv1 pixel in its window has arrived. Pixel (h, w) of
// conv2 needs conv1 pixels up to row min(h + 1, 3), column min(w + 1, 3), so the last one arrives after
// IG 4 * min(h + 1, 3) + min(w + 1, 3); its IG is the later of that plus one and its replica's previous IG
// plus one:
//   replica 0: pixel 0 -> 5 + 1 = 6, 2 -> 7 + 1 = 8, 4 -> 10, 6 -> 12, 8 -> 14, 10 -> 16, 12 -> 17, 14 -> 18;
//   replica 1: pixel 1 -> 7, 3 -> 8, 5 -> 11, 7 -> 12, 9 -> 15, 11 -> 16, 13 -> 17, 15 -> 18.
TEST(CrossbarLl, PixelReadinessOnAChain) {
  const CompilePlan plan = assemblePlan(chain(), small(), llCompile("balance"), {1, 2}, {0, 1, 2});
  ASSERT_EQ(plan.layout.ags.size(), 3u);
  CountingSink sink(plan);
  const LlScheduleSummary s = scheduleLl(plan, {}, sink);
  EXPECT_TRUE(s.completed);
  std::vector<std::int64_t> conv1(16);
  for (int k = 0; k < 16; ++k) conv1[k] = k;
  EXPECT_EQ(sink.agGroups[0], conv1);
  EXPECT_EQ(sink.agGroups[1], (std::vector<std::int64_t>{6, 8, 10, 12, 14, 16, 17, 18}));
  EXPECT_EQ(sink.agGroups[2], (std::vector<std::int64_t>{7, 8, 11, 12, 15, 16, 17, 18}));
  EXPECT_EQ(s.instructionGroups, 19);  // ends in the IG of conv2's last pixel
  EXPECT_EQ(s.mvms, 32);
  EXPECT_EQ(sink.unpaired, 0);
  EXPECT_EQ(sink.misprepared, 0);
  // conv2 is the last node: all 16 pixels stored, none sent on.
  EXPECT_EQ(s.lastNodes, std::vector<int>{2});
  EXPECT_EQ(sink.stores[2].size(), 16u);
  // conv1's pixels go to the conv2 cores that read them: one transfer per (pixel, reading core).
  EXPECT_EQ(s.count(Opcode::Send), 32);
}

// conv -> pool -> flatten -> fc -> softmax: the last node of the graph is a pass-through, so the FC it
// looks through ends the schedule and stores its output (PIMCOMP-NN would need the model in its table).
TEST(CrossbarLl, LastNodeComesFromTheGraph) {
  const std::string convAct =
      ", \"with_bn\": 0, \"with_act\": 1, \"act_type\": 0, \"param\": {\"kernel_h\": 3, \"kernel_w\": 3, "
      "\"stride_h\": 1, \"stride_w\": 1, \"pad_h0\": 1, \"pad_h1\": 1, \"pad_w0\": 1, \"pad_w1\": 1, "
      "\"input_channel\": 3, \"output_channel\": 4, \"with_bias\": 1}";
  const std::string pool =
      ", \"param\": {\"kernel_h\": 2, \"kernel_w\": 2, \"stride_h\": 2, \"stride_w\": 2, \"pad_h0\": 0, "
      "\"pad_h1\": 0, \"pad_w0\": 0, \"pad_w1\": 0, \"pool_method\": 0, \"global\": 0}";
  const std::string fc = ", \"param\": {\"num_input\": 64, \"num_output\": 10, \"with_bias\": 1}";
  const Network net = networkOf({{"in", "OP_INPUT", {}, {"c"}, {1, 3, 8, 8}, {1, 3, 8, 8}, ""},
                                 {"c", "OP_CONV", {"in"}, {"p"}, {1, 3, 8, 8}, {1, 4, 8, 8}, convAct},
                                 {"p", "OP_POOL", {"c"}, {"f"}, {1, 4, 8, 8}, {1, 4, 4, 4}, pool},
                                 {"f", "OP_FLATTEN", {"p"}, {"fc"}, {1, 4, 4, 4}, {1, 64}, ""},
                                 {"fc", "OP_FC", {"f"}, {"sm"}, {1, 64}, {1, 10}, fc},
                                 {"sm", "OP_SOFTMAX", {"fc"}, {}, {1, 10}, {1, 10}, ""}},
                                "tests/unnamed_model.json");
  const CompilePlan plan = compilePlan(net, small(), llCompile("balance"));
  CountingSink sink;
  const LlScheduleSummary s = scheduleLl(plan, {}, sink);
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.lastNodes, std::vector<int>{4});
  ASSERT_EQ(sink.stores.size(), 1u);
  EXPECT_EQ(sink.stores.begin()->first, 4);  // the FC's ST, in the last IG
  EXPECT_EQ(sink.stores.begin()->second, std::vector<std::int64_t>{s.instructionGroups - 1});
  EXPECT_EQ(s.mvms, expectedMvms(net, 128));
  EXPECT_EQ(s.count(Opcode::Vrelu), 64);      // the conv's fused activation, not the last node's
  EXPECT_EQ(s.count(Opcode::Vvmax), 16 * 3);  // 16 pool windows of 4 pixels
  // The FC waits for all 16 pooled pixels; they arrive after the conv's last pixel, at least 64 IGs in.
  EXPECT_GT(s.instructionGroups, 64 / plan.replicas[0]);
  EXPECT_EQ(sink.unpaired, 0);
}

TEST(CrossbarLl, IgCapIsAnOption) {
  EXPECT_EQ(pimcompNnIgCap("vgg16"), 15000);
  EXPECT_EQ(pimcompNnIgCap("resnet18"), 2000);
  const CompilePlan plan = assemblePlan(chain(), small(), llCompile("balance"), {1, 2}, {0, 1, 2});
  LlOptions capped;
  capped.maxInstructionGroups = 5;
  CountingSink sink;
  const LlScheduleSummary s = scheduleLl(plan, capped, sink);
  EXPECT_FALSE(s.completed);
  EXPECT_EQ(s.instructionGroups, 5);
  EXPECT_EQ(sink.groups, 5);
  EXPECT_EQ(s.mvms, 5);  // conv1's pixels 0-4; conv2 cannot start before IG 6
}

TEST(CrossbarLl, LocalMemoryIsBoundedByTheOption) {
  Accelerator acc = small();
  EXPECT_EQ(llLocalMemoryElements(acc, TimingMode::Intended), 64 * 1024 * 8 / 16);
  EXPECT_EQ(llLocalMemoryElements(acc, TimingMode::PimcompNn), kPimcompNnLocalMemoryElements);
  const CompilePlan plan = assemblePlan(chain(), acc, llCompile("balance"), {1, 2}, {0, 1, 2});
  CountingSink unboundedSink;
  const LlScheduleSummary unbounded = scheduleLl(plan, {}, unboundedSink);
  const std::int64_t peak = unbounded.maxLocalMemoryPeak();
  ASSERT_GT(peak, 0);

  LlOptions roomy;  // twice the peak: first fit never reaches the end, so nothing changes
  roomy.localMemoryElements = 2 * peak;
  CountingSink roomySink;
  const LlScheduleSummary r = scheduleLl(plan, roomy, roomySink);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.localMemoryPeak, unbounded.localMemoryPeak);
  EXPECT_EQ(r.perOpcode, unbounded.perOpcode);
  for (std::int64_t p : r.localMemoryPeak) EXPECT_LE(p, roomy.localMemoryElements);

  LlOptions tight;
  tight.localMemoryElements = peak - 1;
  CountingSink tightSink;
  EXPECT_THROW(scheduleLl(plan, tight, tightSink), InputError);

  // Spilling changes nothing where everything fits.
  roomy.spillToGlobalMemory = true;
  CountingSink roomySpillSink;
  const LlScheduleSummary rs = scheduleLl(plan, roomy, roomySpillSink);
  EXPECT_EQ(rs.perOpcode, unbounded.perOpcode);
  EXPECT_EQ(rs.localMemoryPeak, unbounded.localMemoryPeak);
  EXPECT_EQ(rs.spilledPixels, 0);
}

// conv2's cores (1 and 2) hold their AG's buffers (18 + 2 elements) and room for two of conv1's 2-element
// pixels in 24 elements; without spilling, the pixels conv2's first windows need cannot all arrive. With it,
// a pixel a core has no room for goes through global memory: conv1 stores it once (however many cores read
// it from there) and each read of it is an LD into the AG's input, so every MVM still gets its whole window.
TEST(CrossbarLl, PixelsWithoutRoomGoThroughGlobalMemory) {
  const CompilePlan plan = assemblePlan(chain(), small(), llCompile("balance"), {1, 2}, {0, 1, 2});
  LlOptions tight;
  tight.localMemoryElements = 24;
  CountingSink waiting;
  EXPECT_THROW(scheduleLl(plan, tight, waiting), InputError);

  tight.spillToGlobalMemory = true;
  CountingSink sink(plan);
  const LlScheduleSummary s = scheduleLl(plan, tight, sink);
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.mvms, 32);
  EXPECT_EQ(sink.misprepared, 0);
  EXPECT_EQ(sink.unpaired, 0);
  for (std::int64_t p : s.localMemoryPeak) EXPECT_LE(p, 24);
  ASSERT_GT(s.spilledPixels, 0);
  EXPECT_EQ(s.spilledElements, 2 * s.spilledPixels);
  // conv1's STs are its spills, one per pixel; conv2 (the last node) stores its 16 pixels.
  EXPECT_EQ(static_cast<std::int64_t>(sink.stores[1].size()), s.spilledPixels);
  EXPECT_EQ(sink.stores[2].size(), 16u);
  EXPECT_EQ(s.count(Opcode::St), s.spilledPixels + 16);
  // Each (pixel, reading core) is a SEND or spilled; a spilled one is read by LDs, at least 2 elements each.
  EXPECT_LT(s.count(Opcode::Send), 32);
  EXPECT_GE(sink.mainLoads, 2 * (32 - s.count(Opcode::Send)));
}

// Bounded by exactly its unbounded peak, ResNet-18 still completes: where first fit finds no room, a
// transfer, an input load or a post-node output waits for a later IG, and no core ever holds more than the
// bound. With the default core's 64 KB (32 K elements, the Intended mode's bound) waiting leaves no node able
// to progress; spilling (the Intended mode's) completes within the bound.
TEST(CrossbarLl, ResNet18WaitsForLocalMemory) {
  const CompilePlan plan = compilePlan(shipped("resnet18"), Accelerator{}, llCompile("balance"));
  CountingSink unboundedSink;
  const LlScheduleSummary unbounded = scheduleLl(plan, {}, unboundedSink);
  LlOptions bounded;
  bounded.localMemoryElements = unbounded.maxLocalMemoryPeak();
  CountingSink sink;
  const LlScheduleSummary s = scheduleLl(plan, bounded, sink);
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.mvms, 132500);
  EXPECT_EQ(sink.unpaired, 0);
  EXPECT_GE(s.instructionGroups, unbounded.instructionGroups);
  for (std::int64_t p : s.localMemoryPeak) EXPECT_LE(p, bounded.localMemoryElements);

  LlOptions intended;
  intended.localMemoryElements = llLocalMemoryElements(plan.accelerator, TimingMode::Intended);
  CountingSink intendedSink;
  EXPECT_THROW(scheduleLl(plan, intended, intendedSink), InputError);
  intended.spillToGlobalMemory = true;
  CountingSink spillSink(plan);
  const LlScheduleSummary spilled = scheduleLl(plan, intended, spillSink);
  EXPECT_TRUE(spilled.completed);
  EXPECT_EQ(spilled.mvms, 132500);
  EXPECT_EQ(spillSink.unpaired, 0);
  EXPECT_EQ(spillSink.misprepared, 0);
  EXPECT_GT(spilled.spilledPixels, 0);
  for (std::int64_t p : spilled.localMemoryPeak) EXPECT_LE(p, intended.localMemoryElements);
  // Every ST is a spill (one per pixel) or the last node's output; spilled inputs of pool and element-wise
  // nodes are loaded too, not only those of convolutions.
  std::int64_t lastStores = 0;
  for (int n : spilled.lastNodes) lastStores += static_cast<std::int64_t>(spillSink.stores[n].size());
  EXPECT_EQ(spilled.count(Opcode::St), spilled.spilledPixels + lastStores);
  EXPECT_GT(spillSink.mainLoads, 0);
  EXPECT_GT(spillSink.postLoads, 0);
}

TEST(CrossbarLl, PostNodesCanGoWhereTheirInputIs) {
  const CompilePlan plan = compilePlan(shipped("resnet18"), Accelerator{}, llCompile("balance"));
  LlOptions most;
  most.postPlacement = LlPostPlacement::MostInput;
  CountingSink byIndex, byInput;
  const LlScheduleSummary a = scheduleLl(plan, {}, byIndex);
  const LlScheduleSummary b = scheduleLl(plan, most, byInput);
  EXPECT_TRUE(b.completed);
  EXPECT_EQ(a.mvms, b.mvms);
  EXPECT_EQ(byInput.unpaired, 0);
  // Post nodes next to their producers exchange fewer pixels between cores.
  EXPECT_LT(b.count(Opcode::Send), a.count(Opcode::Send));
}

// The formats that multiply whole windows run; every MVMUL's AG input is assembled exactly (the sink checks
// the copies and fills before each one). conv2 (2 channels, 3x3) on 4-row arrays: im2col has 5 bands of
// its 18 rows, I,O,K2 9 matrices of 2 rows, IK,O,K 3 matrices of 6 rows in 2 bands.
TEST(CrossbarLl, RunsWindowUnfoldings) {
  const Accelerator acc = fourRows();
  const std::vector<std::pair<std::string, std::int64_t>> agsPerReplica = {
      {"IK2,O,1", 5}, {"I,O,K2", 9}, {"IK,O,K", 6}};  // im2col first: the others are compared with it
  std::int64_t im2colIgs = 0;
  for (const auto& [format, ags] : agsPerReplica) {
    SCOPED_TRACE(format);
    const CompileOptions o = conv2In(format);
    std::vector<std::int64_t> cores(5, 0);  // conv1's AGs on core 0, conv2's on core 1
    cores.resize(5 + ags, 1);
    const CompilePlan plan = assemblePlan(chain(), acc, o, {1, 1}, cores);
    EXPECT_EQ(plan.layers[1].agsPerReplica, ags);
    CountingSink sink(plan);
    const LlScheduleSummary s = scheduleLl(plan, {}, sink);
    EXPECT_TRUE(s.completed);
    EXPECT_EQ(sink.misprepared, 0);
    EXPECT_EQ(sink.mvms, 16 * 5 + 16 * ags);
    // One replica each: the pipeline's length does not depend on how conv2's window is cut.
    if (format == "IK2,O,1") im2colIgs = s.instructionGroups;
    EXPECT_EQ(s.instructionGroups, im2colIgs);
  }
}

// The scatter formats (ll_scatter.cpp) on conv2, one replica on core 1. Windows: I,OK2,1 the 16 input pixels
// (H = 2 rows: one AG), IK,OK,1 4 output rows x 4 input columns (H = 6: two AGs of 4 rows). A 3 x 3, pad-1
// kernel on 4 x 4 meets (2 + 3 + 3 + 2)^2 = 100 (output pixel, tap) pairs, each a block of I,OK2,1; IK,OK,1
// takes a kernel column per block, (2 + 3 + 3 + 2) x 4 = 40. Each output pixel's first block is copied into
// its accumulator, the others added (VVADD): 84 and 24 adds, plus IK,OK,1's 16 band sums; conv1 (im2col, 5
// AGs on core 0) adds 4 band sums a pixel, 64. Every output pixel of conv2 is stored once.
TEST(CrossbarLl, ScatterUnfoldingsAddEveryBlockIntoItsOutputPixel) {
  const Accelerator acc = fourRows();
  struct Case {
    std::string format;
    std::int64_t ags, adds;
  };
  for (const Case& c : {Case{"I,OK2,1", 1, 84}, Case{"IK,OK,1", 2, 24 + 16}}) {
    SCOPED_TRACE(c.format);
    const CompileOptions o = conv2In(c.format);
    std::vector<std::int64_t> cores(5, 0);
    cores.resize(5 + c.ags, 1);
    const CompilePlan plan = assemblePlan(chain(), acc, o, {1, 1}, cores);
    ASSERT_EQ(plan.layers[1].agsPerReplica, c.ags);
    ASSERT_EQ(plan.layers[1].windows, 16);
    CountingSink sink(plan);
    const LlScheduleSummary s = scheduleLl(plan, {}, sink);
    EXPECT_TRUE(s.completed);
    EXPECT_EQ(sink.mvms, 16 * 5 + 16 * c.ags);
    EXPECT_EQ(sink.misprepared, 0);
    EXPECT_EQ(sink.unpaired, 0);
    EXPECT_EQ(s.count(Opcode::Vvadd), 64 + c.adds);
    EXPECT_EQ(sink.stores[2].size(), 16u);
  }
}

// The MVM invariant in the scatter formats on shipped networks (PIMCOMP-NN's default accelerator, balance):
// a window per input pixel (I,OK2,1) or per output row and input column (IK,OK,1), each running every band
// of its layer's one matrix; every block reaches its output pixel, so the FC's one output is stored.
TEST(CrossbarLl, ScatterUnfoldingsKeepTheMvmInvariantOnShippedNetworks) {
  for (const std::string name : {"lenet5", "resnet18"}) {
    for (const std::string format : {"I,OK2,1", "IK,OK,1"}) {
      SCOPED_TRACE(name + " " + format);
      CompileOptions o = llCompile("balance");
      o.unfolding.all = format;
      const CompilePlan plan = compilePlan(shipped(name), Accelerator{}, o);
      CountingSink sink;
      const LlScheduleSummary s = scheduleLl(plan, {}, sink);
      EXPECT_TRUE(s.completed);
      EXPECT_EQ(sink.mvms, expectedMvms(shipped(name), 128, format));
      EXPECT_EQ(sink.unpaired, 0);
      EXPECT_EQ(s.count(Opcode::St), 1);
    }
  }
}

// Two replicas of conv2 in I,OK2,1 (cores 1 and 2): window i runs on replica i mod 2, output pixel o's
// accumulator lives on replica o mod 2's core. Input pixel i feeds output pixel i - 4 (k_h - 1) - (k_w - 1),
// of the other parity exactly when k_w is 0 or 2: 10 (rows) x 6 (3 output columns for each) = 60 blocks
// cross cores (SEND/RECV), beside conv1's 16 pixels going to the one core that reads each.
TEST(CrossbarLl, ScatterBlocksCrossToTheCoreOfTheirOutputPixel) {
  const CompilePlan plan =
      assemblePlan(chain(), fourRows(), conv2In("I,OK2,1"), {1, 2}, {0, 0, 0, 0, 0, 1, 2});
  CountingSink sink(plan);
  const LlScheduleSummary s = scheduleLl(plan, {}, sink);
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.count(Opcode::Send), 16 + 60);
  EXPECT_EQ(sink.unpaired, 0);
  EXPECT_EQ(sink.misprepared, 0);
  EXPECT_EQ(sink.stores[2].size(), 16u);
}

// A scatter band wider than a core is refused by name (the whole-window formats split it in AGP parts).
TEST(CrossbarLl, AScatterBandWiderThanACoreIsRefused) {
  Accelerator acc = small();
  acc.cols = 4;  // I,OK2,1's W = 2 x 9 = 18 columns: 5 arrays
  acc.crossbarsPerCore = 4;
  const CompilePlan plan = compilePlan(chain(), acc, conv2In("I,OK2,1"));
  CountingSink sink;
  try {
    scheduleLl(plan, {}, sink);
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "node 2 'conv2': unfolding I,OK2,1: a band of 5 arrays is wider than a core"),
              std::string::npos)
        << e.what();
  }
}

// With spilling and no room for an accumulator beside what its core keeps for what cannot wait, the sum
// lives in global memory, updated by the core that computed the block: conv1 and conv2 in I,OK2,1 on core
// 0, at the least local memory that schedules at all (the core's headroom), keep every accumulator there. Of
// its 100 blocks, each pixel's first is stored (ST), the 84 others loaded (LD), added (VVADD) and stored
// back: 100 STs of conv2 (its pixels, the network's output, are not stored again), 84 LDs and 64 + 84 adds;
// no SEND.
TEST(CrossbarLl, ScatterAccumulatorsWithoutRoomLiveInGlobalMemory) {
  const CompilePlan plan = assemblePlan(chain(), fourRows(), conv2In("I,OK2,1"), {1, 1}, {0, 0, 0, 0, 0, 0});
  LlOptions least;
  least.spillToGlobalMemory = true;
  for (least.localMemoryElements = 1;; ++least.localMemoryElements) {
    CountingSink probe;
    try {
      scheduleLl(plan, least, probe);
      break;
    } catch (const InputError&) {  // the headroom does not fit yet
    }
    ASSERT_LT(least.localMemoryElements, 1000);
  }
  CountingSink sink(plan);
  const LlScheduleSummary s = scheduleLl(plan, least, sink);
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(sink.mvms, 16 * 5 + 16);
  EXPECT_EQ(sink.misprepared, 0);
  EXPECT_EQ(sink.stores[2].size(), 100u);
  EXPECT_EQ(s.count(Opcode::Vvadd), 64 + 84);
  EXPECT_EQ(s.count(Opcode::Send), 0);
  for (std::int64_t p : s.localMemoryPeak) EXPECT_LE(p, least.localMemoryElements);
  // GoogLeNet in I,OK2,1 at the Intended mode's 64 kB: open accumulators used to fill cores until no node
  // could progress; now it completes with the MVM invariant.
  CompileOptions all = llCompile("balance");
  all.unfolding.all = "I,OK2,1";
  const CompilePlan google = compilePlan(shipped("googlenet"), Accelerator{}, all);
  LlOptions intended;
  intended.localMemoryElements = llLocalMemoryElements(google.accelerator, TimingMode::Intended);
  intended.spillToGlobalMemory = true;
  CountingSink googleSink;
  const LlScheduleSummary g = scheduleLl(google, intended, googleSink);
  EXPECT_TRUE(g.completed);
  EXPECT_EQ(googleSink.mvms, expectedMvms(shipped("googlenet"), 128, "I,OK2,1"));
  EXPECT_EQ(googleSink.unpaired, 0);
  EXPECT_GT(g.spilledPixels, 0);
}

}  // namespace ll_tests
}  // namespace pim::crossbar
