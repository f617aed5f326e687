// SPDX-License-Identifier: Apache-2.0
// PIMCOMP-NN's frontend.py passes in its order (engine/kernel/onnx_frontend.h), on a list linked by names as
// frontend.py's is, so that the node list matches the one it writes (../shared/specs/crossbar.md, "Model
// input: the ONNX-derived node list").
#include "engine/kernel/onnx_frontend.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine/common/error.h"

namespace pim::onnx_frontend {
namespace {

using nlohmann::json;
using Dims = std::vector<std::int64_t>;

// frontend.py's ONNX_op_2_PIMCOMP_op: every other op (Constant aside) stops the frontend, so it is refused.
// clang-format off
const std::map<std::string, std::string, std::less<>> kOpTable{
    {"Add", "OP_ELTWISE"}, {"AveragePool", "OP_POOL"}, {"BatchNormalization", "OP_BN"}, {"Clip", "OP_CLIP"},
    {"Concat", "OP_CONCAT"}, {"Conv", "OP_CONV"}, {"Dropout", "OP_DROPOUT"}, {"Flatten", "OP_FLATTEN"},
    {"Gather", "OP_GATHER"}, {"Gemm", "OP_FC"}, {"GlobalAveragePool", "OP_POOL"}, {"LRN", "OP_LRN"},
    {"MatMul", "OP_MATMUL"}, {"MaxPool", "OP_POOL"}, {"Mul", "OP_ELTWISE"}, {"Pad", "OP_PAD"},
    {"Relu", "OP_RELU"}, {"Reshape", "OP_RESHAPE"}, {"Shape", "OP_SHAPE"}, {"Sigmoid", "OP_SIGMOID"},
    {"Softmax", "OP_SOFTMAX"}, {"Squeeze", "OP_SQUEEZE"}, {"Sub", "OP_ELTWISE"}, {"Sum", "OP_ELTWISE"},
    {"Tanh", "OP_TANH"}, {"Transpose", "OP_TRANSPOSE"}, {"Unsqueeze", "OP_UNSQUEEZE"}};
// clang-format on

// The clip bounds PIMCOMP-NN writes on every CONV and FC (no clip is folded).
constexpr std::int64_t kClipBound = 10000000;

std::string dimsText(const Dims& d) {
  std::string s;
  for (auto x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s.empty() ? "a scalar" : s;
}

// The integers of a constant int64 tensor (a Pad's pads), or nullopt for another type or external data.
std::optional<Dims> tensorInts(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL || t.data_type() != onnx::TensorProto::INT64)
    return std::nullopt;
  if (t.int64_data_size() > 0) return Dims(t.int64_data().begin(), t.int64_data().end());
  Dims v(t.raw_data().size() / sizeof(std::int64_t));
  std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(std::int64_t));  // ONNX raw data is LE
  return v;
}

// A node of the list while the passes rewrite it. Links are names, as in frontend.py, because its passes
// re-point them by name.
struct ListNode {
  std::string name, op, onnxOp;  // op "OP_CONV"; onnxOp "Conv", empty for a graph input
  int onnxIndex = -1;
  std::optional<Dims> out;  // nullopt: shape inference left a size unknown
  std::vector<std::string> providers, consumers;
  json param = json::object();
  std::array<std::int64_t, 8> pads{};  // OP_PAD: ONNX's begins then ends, N C H W
  bool withBn = false, withAct = false, removed = false;
  int actType = -1;
};

// A sliding window, axis 0 = H, 1 = W.
struct Window {
  std::array<std::int64_t, 2> k{}, s{1, 1}, d{1, 1}, p0{}, p1{};
};

class Frontend {
 public:
  Frontend(const onnx::GraphProto& g, std::string_view origin) : m_g(g), m_origin(origin) {}

  json run() {
    collect();
    addInputs();
    for (int i = 0; i < m_g.node_size(); ++i)
      if (m_g.node(i).op_type() != "Constant") add(convert(i, m_g.node(i)));
    for (const ListNode& n : m_list)
      for (const std::string& p : n.providers) at(p).consumers.push_back(n.name);
    recordReshapeInfo();
    removeShapeChains();
    makeShuffles();
    mergePads();
    fuse("OP_BN", -1);
    fuse("OP_RELU", 0);
    fuse("OP_TANH", 1);
    fuse("OP_SIGMOID", 2);
    return document();
  }

 private:
  [[noreturn]] void fail(const ListNode& n, std::string_view field, std::string_view problem) const {
    const std::string where = n.onnxOp.empty() ? m_origin + ": graph input '" + printable(n.name) + "'"
                                               : m_origin + ": ONNX node " + std::to_string(n.onnxIndex) +
                                                     " '" + printable(n.name) + "' (" + n.onnxOp + ")";
    throw InputError(where + ": " + std::string(field) + ": " + std::string(problem));
  }

  ListNode& at(const std::string& name) { return m_list[m_index.at(name)]; }

  void add(ListNode n) {
    if (!m_index.emplace(n.name, m_list.size()).second)
      fail(n, "output", "tensor '" + printable(n.name) + "' is also a graph input or another node's output");
    m_list.push_back(std::move(n));
  }

  // Shapes of every tensor shape inference knew, constants, and which list node produces each tensor.
  void collect() {
    auto shape = [&](const onnx::ValueInfoProto& v) { m_shapes[v.name()] = knownDims(v); };
    for (const auto& v : m_g.input()) shape(v);
    for (const auto& v : m_g.value_info()) shape(v);
    for (const auto& v : m_g.output()) shape(v);
    for (const auto& t : m_g.initializer()) {  // weights: their shapes are no value_info
      m_constants.emplace(t.name(), &t);
      m_shapes.emplace(t.name(), Dims(t.dims().begin(), t.dims().end()));
    }
    for (const auto& n : m_g.node()) {
      if (n.op_type() == "Constant") {
        m_constantOutputs.insert(n.output(0));
        for (const auto& a : n.attribute())
          if (a.name() == "value")
            m_constants.emplace(n.output(0), &a.t());
          else if (a.name() == "value_ints")
            m_constantInts.emplace(n.output(0), Dims(a.ints().begin(), a.ints().end()));
        continue;
      }
      for (const auto& out : n.output()) m_producer.emplace(out, n.output(0));
    }
  }

  bool isConstant(const std::string& tensor) const {
    return m_constants.contains(tensor) || m_constantOutputs.contains(tensor);
  }

  void addInputs() {
    for (const auto& v : m_g.input()) {
      if (m_constants.contains(v.name())) continue;
      ListNode n;
      n.name = v.name(), n.op = "OP_INPUT", n.out = m_shapes[v.name()];
      m_producer.emplace(v.name(), v.name());
      add(std::move(n));
    }
  }

  ListNode convert(int index, const onnx::NodeProto& node) {
    ListNode n;
    n.name = node.output(0), n.op = *pimcompOp(node.op_type()), n.onnxOp = node.op_type();
    n.onnxIndex = index, n.out = m_shapes[n.name];
    for (const std::string& in : node.input()) {
      if (in.empty() || isConstant(in)) continue;  // an omitted optional input; a weight or a constant
      n.providers.push_back(m_producer.at(in));    // checkOnnxNodes saw that something produces it
    }
    const std::string& op = node.op_type();
    if (op == "Conv") n.param = convParams(n, node);
    if (op == "MaxPool" || op == "AveragePool") n.param = poolParams(n, node, op == "MaxPool" ? 0 : 1);
    if (op == "GlobalAveragePool") n.param = globalPoolParams(n, node);
    if (op == "Gemm") n.param = gemmParams(n, node);
    if (op == "Add" || op == "Sum" || op == "Mul") n.param = {{"eletype", 2}};
    if (op == "Sub") n.param = {{"eletype", 4}};
    if (op == "Pad") readPads(n, node);
    return n;
  }

  const onnx::AttributeProto* attribute(const onnx::NodeProto& node, std::string_view name) const {
    for (const auto& a : node.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  std::int64_t attrInt(const ListNode& n, const onnx::NodeProto& node, std::string_view name,
                       std::int64_t dflt) const {
    const auto* a = attribute(node, name);
    if (a && a->type() != onnx::AttributeProto::INT) fail(n, name, "must be an integer attribute");
    return a ? a->i() : dflt;
  }
  Dims attrInts(const ListNode& n, const onnx::NodeProto& node, std::string_view name, Dims dflt,
                std::size_t size) const {
    const auto* a = attribute(node, name);
    if (a && a->type() != onnx::AttributeProto::INTS) fail(n, name, "must be an integer-list attribute");
    Dims v = a ? Dims(a->ints().begin(), a->ints().end()) : std::move(dflt);
    if (v.size() != size)
      fail(n, name,
           "must list " + std::to_string(size) + " values (a 2-D window), got " + std::to_string(v.size()));
    return v;
  }

  const Dims& dimsOf(const ListNode& n, const std::string& tensor, std::string_view field) {
    const auto it = m_shapes.find(tensor);
    if (it == m_shapes.end() || !it->second)
      fail(n, field, "the shape of tensor '" + printable(tensor) + "' is unknown after ONNX shape inference");
    return *it->second;
  }
  const Dims& input4d(const ListNode& n, const onnx::NodeProto& node) {
    const Dims& in = dimsOf(n, node.input(0), "input");
    if (in.size() != 4) fail(n, "input", dimsText(in) + ", but a window needs a 4-D (NCHW) input");
    return in;
  }

  // Kernel, strides, dilations and pads; auto_pad SAME/VALID becomes explicit pads (frontend.py reads only
  // explicit ones, and a window without them would not load).
  Window readWindow(const ListNode& n, const onnx::NodeProto& node, const Dims& in,
                    const Dims& kernel) const {
    Window w;
    if (kernel.size() != 2)
      fail(n, "kernel_shape", "must list 2 sizes (a 2-D window), got " + std::to_string(kernel.size()));
    const Dims s = attrInts(n, node, "strides", {1, 1}, 2), d = attrInts(n, node, "dilations", {1, 1}, 2);
    const Dims p = attrInts(n, node, "pads", {0, 0, 0, 0}, 4);  // ONNX: H begin, W begin, H end, W end
    const std::string autoPad = attribute(node, "auto_pad") ? attribute(node, "auto_pad")->s() : "NOTSET";
    for (int a = 0; a < 2; ++a) {
      w.k[a] = kernel[a], w.s[a] = s[a], w.d[a] = d[a], w.p0[a] = p[a], w.p1[a] = p[a + 2];
      if (w.k[a] < 1 || w.s[a] < 1 || w.d[a] < 1)
        fail(n, "kernel_shape", "sizes, strides and dilations must be positive");
      if (autoPad == "VALID") w.p0[a] = w.p1[a] = 0;
      if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        const std::int64_t out = (in[2 + a] + w.s[a] - 1) / w.s[a];
        const std::int64_t total =
            std::max<std::int64_t>(0, (out - 1) * w.s[a] + (w.k[a] - 1) * w.d[a] + 1 - in[2 + a]);
        w.p0[a] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
        w.p1[a] = total - w.p0[a];
      } else if (autoPad != "NOTSET" && autoPad != "VALID") {
        fail(n, "auto_pad", "'" + printable(autoPad) + "' is none of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
      }
    }
    return w;
  }

  static json windowJson(const Window& w) {
    return {{"kernel_h", w.k[0]}, {"kernel_w", w.k[1]}, {"stride_h", w.s[0]}, {"stride_w", w.s[1]},
            {"pad_h0", w.p0[0]},  {"pad_h1", w.p1[0]},  {"pad_w0", w.p0[1]},  {"pad_w1", w.p1[1]}};
  }

  const Dims& outDims(const ListNode& n) const {
    if (!n.out)
      fail(n, "output",
           "the shape of tensor '" + printable(n.name) + "' is unknown after ONNX shape inference");
    return *n.out;
  }

  json convParams(const ListNode& n, const onnx::NodeProto& node) {
    const Dims& in = input4d(n, node);
    Dims kernel;
    if (attribute(node, "kernel_shape")) {
      kernel = attrInts(n, node, "kernel_shape", {}, 2);
    } else {  // optional in ONNX: the weight's trailing sizes
      if (node.input_size() < 2) fail(n, "input", "a Conv needs a weight input");
      const Dims& weight = dimsOf(n, node.input(1), "kernel_shape");
      kernel.assign(weight.begin() + std::min<std::size_t>(2, weight.size()), weight.end());
    }
    const Window w = readWindow(n, node, in, kernel);
    json p = windowJson(w);
    p["dilation_h"] = w.d[0];
    p["dilation_w"] = w.d[1];
    const std::int64_t group = attrInt(n, node, "group", 1);
    // ONNX 1.12's Conv inference does not compare the weight's channels with the input's; the node list
    // takes input_channel from the input, so a mismatch would go unnoticed.
    if (node.input_size() >= 2 && m_shapes[node.input(1)] && m_shapes[node.input(1)]->size() == 4) {
      const Dims& weight = *m_shapes[node.input(1)];
      if (group < 1 || weight[1] * group != in[1])
        fail(n, "input",
             "the weight " + dimsText(weight) + " with group " + std::to_string(group) + " reads " +
                 std::to_string(weight[1] * group) + " channels, but the input " + dimsText(in) + " has " +
                 std::to_string(in[1]));
    }
    p["group"] = group;
    p["input_channel"] = in[1];
    p["output_channel"] = outDims(n).at(1);
    p["with_bias"] = node.input_size() >= 3 && !node.input(2).empty() ? 1 : 0;
    return p;
  }

  // MaxPool/AveragePool. ceil_mode rounds the output up; the node-list format has only the floor formula,
  // so the extra window becomes bottom/right pad, as Caffe-converted models (GoogLeNet) write it.
  json poolParams(const ListNode& n, const onnx::NodeProto& node, int method) {
    const Dims& in = input4d(n, node);
    if (!attribute(node, "kernel_shape")) fail(n, "kernel_shape", "missing (required by ONNX)");
    Window w = readWindow(n, node, in, attrInts(n, node, "kernel_shape", {}, 2));
    if (w.d[0] != 1 || w.d[1] != 1) fail(n, "dilations", "a dilated pool has no node-list form");
    if (attrInt(n, node, "ceil_mode", 0) == 1) {
      const Dims& out = outDims(n);
      for (int a = 0; a < 2; ++a)
        if (out.size() == 4)
          w.p1[a] +=
              std::max<std::int64_t>(0, (out[2 + a] - 1) * w.s[a] + w.k[a] - (in[2 + a] + w.p0[a] + w.p1[a]));
    }
    json p = windowJson(w);
    p["pool_method"] = method;
    p["global"] = 0;
    return p;
  }

  json globalPoolParams(const ListNode& n, const onnx::NodeProto& node) {
    const Dims& in = input4d(n, node);
    return {{"kernel_h", in[2]}, {"kernel_w", in[3]}, {"stride_h", 1}, {"stride_w", 1},    {"pad_h0", 0},
            {"pad_h1", 0},       {"pad_w0", 0},       {"pad_w1", 0},   {"pool_method", 1}, {"global", 1}};
  }

  // num_input is the input's feature count; for a 1-D input frontend.py takes the weight's (B: [out, in]
  // with transB, else [in, out]).
  json gemmParams(const ListNode& n, const onnx::NodeProto& node) {
    if (attrInt(n, node, "transA", 0) != 0) fail(n, "transA", "1: a transposed input is no FC layer");
    const Dims& in = dimsOf(n, node.input(0), "input");
    std::int64_t numInput = in.size() > 1 ? in[1] : 0;
    if (in.size() <= 1) {
      if (node.input_size() < 2) fail(n, "input", "a Gemm needs a weight input");
      const Dims& weight = dimsOf(n, node.input(1), "input");
      if (weight.size() != 2) fail(n, "input", "the weight is " + dimsText(weight) + ", not 2-D");
      numInput = weight[attrInt(n, node, "transB", 0) != 0 ? 1 : 0];
    }
    const Dims& out = outDims(n);
    if (out.size() != 2) fail(n, "output", dimsText(out) + ", but a Gemm's output is 2-D");
    return {{"num_input", numInput},
            {"num_output", out[1]},
            {"with_bias", node.input_size() >= 3 && !node.input(2).empty() ? 1 : 0}};
  }

  // The pads of a Pad: an attribute before opset 11, then a constant second input (an initializer or a
  // Constant node, frontend.py's two cases).
  void readPads(ListNode& n, const onnx::NodeProto& node) {
    std::optional<Dims> v;
    if (attribute(node, "pads")) {
      v = attrInts(n, node, "pads", {}, 8);
    } else if (node.input_size() >= 2) {
      const std::string& t = node.input(1);
      if (const auto c = m_constants.find(t); c != m_constants.end()) v = tensorInts(*c->second);
      if (const auto c = m_constantInts.find(t); c != m_constantInts.end()) v = c->second;
    }
    if (!v) fail(n, "pads", "not a constant integer tensor (an initializer or a Constant node)");
    if (v->size() != 8)
      fail(n, "pads", "holds " + std::to_string(v->size()) + " values, but a 4-D (NCHW) pad needs 8");
    std::copy(v->begin(), v->end(), n.pads.begin());
    for (int a = 0; a < 4; ++a) {  // frontend.py's names: pad_<axis>_h the begin, pad_<axis>_w the end
      n.param["pad_" + std::to_string(a) + "_h"] = n.pads[a];
      n.param["pad_" + std::to_string(a) + "_w"] = n.pads[a + 4];
    }
    n.param["value"] = 0;
  }

  // frontend.py's manual_fix: the flatten or reshape whose single consumer is an FC and whose input is not
  // 2-D, recorded before anything is fused. The first such one, as the spec says ("in front of the first
  // FC"); frontend.py's loop keeps the last, the same one in every network it ships (each has one).
  void recordReshapeInfo() {
    for (const ListNode& n : m_list) {
      if ((n.op != "OP_FLATTEN" && n.op != "OP_RESHAPE") || n.consumers.size() != 1 || n.providers.empty())
        continue;
      const ListNode& fc = at(n.consumers[0]);
      const std::optional<Dims>& in = at(n.providers[0]).out;
      if (fc.op != "OP_FC" || !in || in->size() == 2 || !n.out) continue;
      m_reshapeInfo = {{"name", fc.name}, {"input_dim", *in}, {"output_dim", *n.out}};
      return;
    }
  }

  static void erase(std::vector<std::string>& v, const std::string& name) {
    v.erase(std::remove(v.begin(), v.end(), name), v.end());
  }
  static void rename(std::vector<std::string>& v, const std::string& from, const std::string& to) {
    std::replace(v.begin(), v.end(), from, to);
  }
  // The node that `n`'s first consumer is, when it has op `op`.
  ListNode* next(const ListNode& n, std::string_view op) {
    if (n.consumers.empty()) return nullptr;
    ListNode& c = at(n.consumers[0]);
    return c.op == op ? &c : nullptr;
  }

  // clear_unused_struct: Shape -> Gather -> Unsqueeze -> Concat computes a Reshape's target shape (a PyTorch
  // flatten); it goes, and the Reshape keeps the data as its only provider.
  void removeShapeChains() {
    for (ListNode& s : m_list) {
      if (s.op != "OP_SHAPE" || s.removed) continue;
      ListNode* g = next(s, "OP_GATHER");
      ListNode* u = g ? next(*g, "OP_UNSQUEEZE") : nullptr;
      ListNode* c = u ? next(*u, "OP_CONCAT") : nullptr;
      if (!c) continue;
      s.removed = g->removed = u->removed = c->removed = true;
      if (!s.providers.empty()) erase(at(s.providers[0]).consumers, s.name);
      if (!c->consumers.empty()) erase(at(c->consumers[0]).providers, c->name);
    }
  }

  // optimize_for_shuffle: Reshape -> Transpose -> Reshape (a channel shuffle) becomes one OP_SHUFFLE named
  // as the second reshape, in the first one's place.
  void makeShuffles() {
    for (std::size_t i = 0; i < m_list.size(); ++i) {
      ListNode& r = m_list[i];
      if (r.op != "OP_RESHAPE" || r.removed || !r.out || r.out->size() < 3) continue;
      ListNode* t = next(r, "OP_TRANSPOSE");
      ListNode* r2 = t ? next(*t, "OP_RESHAPE") : nullptr;
      if (!r2) continue;
      if (!r.providers.empty()) rename(at(r.providers[0]).consumers, r.name, r2->name);
      r.param = {{"input_channel", (*r.out)[1] * (*r.out)[2]}, {"split_factor", (*r.out)[1]}};
      r.name = r2->name, r.op = "OP_SHUFFLE", r.out = r2->out, r.consumers = r2->consumers;
      t->removed = r2->removed = true;
      m_index[r.name] = i;
    }
  }

  // merge_padding: a Pad with one consumer, a CONV or POOL with no other provider, adds its H and W pads to
  // the consumer's and goes.
  void mergePads() {
    for (ListNode& p : m_list) {
      if (p.op != "OP_PAD" || p.removed || p.consumers.size() != 1) continue;
      ListNode& c = at(p.consumers[0]);
      if (c.providers.size() != 1 || (c.op != "OP_CONV" && c.op != "OP_POOL")) continue;
      if (p.pads[0] || p.pads[1] || p.pads[4] || p.pads[5])
        fail(p, "pads",
             "pads the batch or channel axis; only H and W pads merge into '" + printable(c.name) + "'");
      c.providers = p.providers;
      for (const std::string& pp : p.providers) rename(at(pp).consumers, p.name, c.name);
      c.param["pad_h0"] = c.param["pad_h0"].get<std::int64_t>() + p.pads[2];
      c.param["pad_h1"] = c.param["pad_h1"].get<std::int64_t>() + p.pads[6];
      c.param["pad_w0"] = c.param["pad_w0"].get<std::int64_t>() + p.pads[3];
      c.param["pad_w1"] = c.param["pad_w1"].get<std::int64_t>() + p.pads[7];
      p.removed = true;
    }
  }

  // fuse_operators, one op at a time in frontend.py's order: a node of op `op` with one provider, a CONV or
  // FC with no other consumer, becomes that node's with_bn (actType -1) or with_act/act_type.
  void fuse(std::string_view op, int actType) {
    for (ListNode& f : m_list) {
      if (f.op != op || f.removed || f.providers.size() != 1) continue;
      ListNode& p = at(f.providers[0]);
      if (p.consumers.size() != 1 || (p.op != "OP_CONV" && p.op != "OP_FC")) continue;
      if (actType < 0)
        p.withBn = true;
      else
        p.withAct = true, p.actType = actType;
      p.consumers = f.consumers;
      for (const std::string& c : f.consumers) rename(at(c).providers, f.name, p.name);
      f.removed = true;
    }
  }

  json nodeJson(const ListNode& n, int index, const std::unordered_map<std::string, int>& final) {
    json j = {{"index", index}, {"name", n.name}, {"operation", n.op}, {"bitwidth", 16}};
    const Dims& out = outDims(n);
    j["output_dim"] = out;
    j["output_dim_num"] = out.size();
    for (const char* side : {"provider", "consumer"}) {
      const auto& names = std::string(side) == "provider" ? n.providers : n.consumers;
      json indices = json::array();
      for (const std::string& name : names) {
        const auto it = final.find(name);
        if (it == final.end())
          fail(n, side,
               "'" + printable(name) +
                   "' was removed by a frontend rule (a Shape-Gather-Unsqueeze-Concat chain "
                   "or a shuffle) but still feeds this node");
        indices.push_back(it->second);
      }
      j[side] = names;
      j[std::string(side) + "_index"] = indices;
      j[std::string(side) + "_num"] = names.size();
    }
    if (!n.providers.empty()) {
      const Dims& in = outDims(at(n.providers[0]));
      j["input_dim"] = in;
      j["input_dim_num"] = in.size();
    }
    if (!n.param.empty()) j["param"] = n.param;
    if (n.op == "OP_CONV" || n.op == "OP_FC") {
      j.update({{"with_bn", n.withBn ? 1 : 0},
                {"with_act", n.withAct ? 1 : 0},
                {"act_type", n.actType},
                {"with_clip", 0},
                {"clip_min", -kClipBound},
                {"clip_max", kClipBound}});
    }
    return j;
  }

  // final_process: the surviving nodes renumbered, links as names and indices.
  json document() {
    std::unordered_map<std::string, int> final;
    for (const ListNode& n : m_list)
      if (!n.removed) final.emplace(n.name, static_cast<int>(final.size()));
    json list = json::array();
    for (const ListNode& n : m_list)
      if (!n.removed) list.push_back(nodeJson(n, static_cast<int>(list.size()), final));
    json doc = {{"node_list", std::move(list)}};
    if (!m_reshapeInfo.is_null()) doc["reshape_info"] = m_reshapeInfo;
    return doc;
  }

  const onnx::GraphProto& m_g;
  std::string m_origin;
  std::vector<ListNode> m_list;
  std::unordered_map<std::string, std::size_t> m_index;                   // list position by name
  std::unordered_map<std::string, std::optional<Dims>> m_shapes;          // by tensor
  std::unordered_map<std::string, const onnx::TensorProto*> m_constants;  // initializers, Constant values
  std::unordered_map<std::string, Dims> m_constantInts;                   // Constant value_ints
  std::unordered_set<std::string> m_constantOutputs;
  std::unordered_map<std::string, std::string> m_producer;  // tensor -> list node name
  json m_reshapeInfo;
};

}  // namespace

std::optional<std::string_view> pimcompOp(std::string_view onnxOp) {
  const auto it = kOpTable.find(onnxOp);
  return it == kOpTable.end() ? std::nullopt : std::optional<std::string_view>(it->second);
}

std::string printable(std::string_view s) {
  std::string out;
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u >= 0x20 && u != 0x7f) {
      out += ch;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    }
  }
  return out.size() > 80 ? out.substr(0, 77) + "..." : out;
}

std::string pimcompOpList() {
  std::string s;
  for (const auto& [op, unused] : kOpTable) s += (s.empty() ? "" : ", ") + op;
  return s;
}

// A tensor's sizes, or nullopt when shape inference left one unknown.
std::optional<std::vector<std::int64_t>> knownDims(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return std::nullopt;
  std::vector<std::int64_t> d;
  for (const auto& x : v.type().tensor_type().shape().dim()) {
    if (!x.has_dim_value() || x.dim_value() <= 0) return std::nullopt;
    d.push_back(x.dim_value());
  }
  return d;
}

json pimcompNodeList(const onnx::GraphProto& g, std::string_view origin) { return Frontend(g, origin).run(); }

}  // namespace pim::onnx_frontend
