// SPDX-License-Identifier: Apache-2.0
// What the crossbar compiler's tests share (test_crossbar_compile.cpp, test_crossbar_ht.cpp,
// test_crossbar_ga.cpp): a hand-worked
// network and accelerator, a sink that counts what a schedule emits, and InputError's text.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/crossbar/compile.h"
#include "engine/crossbar/ht_schedule.h"

// Named, not anonymous: the unity build may put these files beside test_crossbar_ll.cpp, whose helpers
// (in ll_tests) have the same names.
namespace pim::crossbar::compile_tests {

using xbar::Opcode;

inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Counts what the scheduler emits and checks every IG's SEND/RECV pairing on the fly.
class CountingSink : public xbar::IProgramSink {
 public:
  explicit CountingSink(std::int64_t stopAfter = -1) : m_stopAfter(stopAfter) {}
  bool group(const xbar::InstructionGroup& ig) override {
    ++groups;
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, xbar::Instruction>>> comms;
    for (std::size_t c = 0; c < ig.cores.size(); ++c) {
      for (const xbar::Instruction& i : ig.cores[c]) {
        ++perOpcode[i.op];
        if (i.op == Opcode::Mvmul) ++mvms;
        if (i.op == Opcode::Send || i.op == Opcode::Recv) comms[i.comm].push_back({c, i});
      }
    }
    for (const auto& [comm, halves] : comms) {
      const bool paired = halves.size() == 2 && halves[0].second.op != halves[1].second.op &&
                          halves[0].second.peer == halves[1].first &&
                          halves[1].second.peer == halves[0].first &&
                          halves[0].second.elements == halves[1].second.elements;
      if (!paired) ++unpairedComms;
    }
    return m_stopAfter < 0 || groups < m_stopAfter;
  }
  std::int64_t groups = 0, mvms = 0, unpairedComms = 0;
  std::map<Opcode, std::int64_t> perOpcode;

 private:
  std::int64_t m_stopAfter;
};

inline Accelerator defaultAccelerator(std::int64_t coresPerSide = 12) {
  Accelerator a;
  a.name = "crossbar-default";
  a.coresX = a.coresY = coresPerSide;
  return a;
}

// ---------------------------------------------------------------------------------------------------------
// A hand-worked network: data 4x8x8 -> c1 (3x3 s1 p1, 4->16, bias, relu) -> c2 (3x3 s2 p1, 16->32) ->
// c3 (1x1 s2, 32->16) -> global average pool -> flatten -> fc (16->10). On 64 x 16 arrays:
//   c1: H 36 (1 band), W 16 (1 array), 64 windows;  c2: H 144 (3 bands), W 32 (2 arrays), 16 windows;
//   c3: H 32 (1 band), W 16 (1 array), 4 windows;   fc: H 16, W 10, 1 crossbar.
// ---------------------------------------------------------------------------------------------------------
struct NodeSpec {
  std::string name, op;
  std::vector<int> providers;
  std::vector<int> in, out;
  std::string param, flags;
};

inline std::string dims(const std::vector<int>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

inline std::string networkJson(const std::vector<NodeSpec>& nodes) {
  std::string s = R"({"node_list": [)";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeSpec& n = nodes[i];
    std::vector<int> consumers;
    for (std::size_t j = 0; j < nodes.size(); ++j)
      for (int p : nodes[j].providers)
        if (p == static_cast<int>(i)) consumers.push_back(static_cast<int>(j));
    std::string prov = "[", provIdx = dims(n.providers), cons = "[";
    for (std::size_t k = 0; k < n.providers.size(); ++k)
      prov += (k ? ",\"" : "\"") + nodes[n.providers[k]].name + "\"";
    for (std::size_t k = 0; k < consumers.size(); ++k)
      cons += (k ? ",\"" : "\"") + nodes[consumers[k]].name + "\"";
    s += std::string(i ? "," : "") + R"({"index":)" + std::to_string(i) + R"(,"name":")" + n.name +
         R"(","operation":")" + n.op + R"(","provider_num":)" + std::to_string(n.providers.size()) +
         R"(,"provider":)" + prov + R"(],"provider_index":)" + provIdx + R"(,"consumer_num":)" +
         std::to_string(consumers.size()) + R"(,"consumer":)" + cons + R"(],"consumer_index":)" +
         dims(consumers) + R"(,"input_dim_num":)" + std::to_string(n.in.size()) + R"(,"input_dim":)" +
         dims(n.in) + R"(,"output_dim_num":)" + std::to_string(n.out.size()) + R"(,"output_dim":)" +
         dims(n.out) + R"(,"bitwidth":16)" + n.flags + (n.param.empty() ? "" : R"(,"param":)" + n.param) +
         "}";
  }
  return s + "]}";
}

inline std::string convParam(int k, int s, int p, int in, int out, int bias) {
  const std::string ks = std::to_string(k), ss = std::to_string(s), ps = std::to_string(p);
  return R"({"kernel_h":)" + ks + R"(,"kernel_w":)" + ks + R"(,"stride_h":)" + ss + R"(,"stride_w":)" + ss +
         R"(,"pad_h0":)" + ps + R"(,"pad_h1":)" + ps + R"(,"pad_w0":)" + ps + R"(,"pad_w1":)" + ps +
         R"(,"input_channel":)" + std::to_string(in) + R"(,"output_channel":)" + std::to_string(out) +
         R"(,"with_bias":)" + std::to_string(bias) + "}";
}

/// `c1Plain`: c1 without its bias and ReLU (the GA tests' hand-worked fitness counts no bias loads).
inline Network tinyNetwork(bool c1Plain = false) {
  const std::string relu = R"(,"with_bn":0,"with_act":1,"act_type":0)";
  const std::string none = R"(,"with_bn":0,"with_act":0,"act_type":-1)";
  const std::vector<NodeSpec> nodes = {
      {"data", "OP_INPUT", {}, {1, 4, 8, 8}, {1, 4, 8, 8}, "", ""},
      {"c1",
       "OP_CONV",
       {0},
       {1, 4, 8, 8},
       {1, 16, 8, 8},
       convParam(3, 1, 1, 4, 16, c1Plain ? 0 : 1),
       c1Plain ? none : relu},
      {"c2", "OP_CONV", {1}, {1, 16, 8, 8}, {1, 32, 4, 4}, convParam(3, 2, 1, 16, 32, 0), none},
      {"c3", "OP_CONV", {2}, {1, 32, 4, 4}, {1, 16, 2, 2}, convParam(1, 2, 0, 32, 16, 0), none},
      {"pool",
       "OP_POOL",
       {3},
       {1, 16, 2, 2},
       {1, 16, 1, 1},
       R"({"kernel_h":2,"kernel_w":2,"stride_h":1,"stride_w":1,"pad_h0":0,"pad_h1":0,"pad_w0":0,"pad_w1":0,)"
       R"("pool_method":1,"global":1})",
       ""},
      {"flat", "OP_FLATTEN", {4}, {1, 16, 1, 1}, {1, 16}, "", ""},
      {"fc", "OP_FC", {5}, {1, 16}, {1, 10}, R"({"num_input":16,"num_output":10,"with_bias":1})", none},
  };
  return parseNetworkJson(networkJson(nodes), "tiny.json");
}

inline Accelerator tinyAccelerator(std::int64_t coresX, std::int64_t coresY, std::int64_t perCore) {
  Accelerator a;
  a.name = "tiny-acc";
  a.rows = 64;
  a.cols = 16;
  a.crossbarsPerCore = perCore;
  a.coresX = coresX;
  a.coresY = coresY;
  return a;
}

inline CompilePlan tinyPlan(const std::string& method, const Accelerator& acc = tinyAccelerator(2, 2, 8)) {
  CompileOptions o;
  o.replication = method;
  return compilePlan(tinyNetwork(), acc, o);
}

}  // namespace pim::crossbar::compile_tests
