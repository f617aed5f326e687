// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/network.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "engine/common/data_dir.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_fields.h"
#include "engine/common/json_input.h"
#include "engine/common/sha256.h"

namespace pim {
namespace {

using nlohmann::json;

// The file's names, in NetworkOp order.
constexpr std::array<std::string_view, 24> kOpNames{
    "OP_INPUT", "OP_CONV",    "OP_FC",      "OP_POOL",    "OP_ELTWISE",   "OP_CONCAT",
    "OP_RELU",  "OP_TANH",    "OP_SIGMOID", "OP_FLATTEN", "OP_RESHAPE",   "OP_DROPOUT",
    "OP_LRN",   "OP_SOFTMAX", "OP_PAD",     "OP_SHUFFLE", "OP_TRANSPOSE", "OP_BN",
    "OP_CLIP",  "OP_SQUEEZE", "OP_MATMUL",  "OP_SHAPE",   "OP_GATHER",    "OP_UNSQUEEZE"};
static_assert(static_cast<std::size_t>(NetworkOp::Unsqueeze) + 1 == kOpNames.size());

std::string dimsText(const std::vector<std::int64_t>& d) {
  std::string s;
  for (auto x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

std::string quote(const json& v) { return quoteJson(v); }

// Reads the fields of one JSON object. Every error is one line: the place (the file and the node) and the
// field's path ("param.kernel_h"), so a user finds the spot without counting nodes.
class FieldReader : public JsonFields<FieldReader> {
 public:
  using JsonFields::JsonFields;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
    return integerValue(at(key), key, lo, hi);
  }
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t dflt) const {
    return has(key) ? integer(key, lo, hi) : dflt;
  }
  // The files write flags as 0/1; true/false mean the same.
  bool flag(std::string_view key, std::optional<bool> dflt = std::nullopt) const {
    if (!has(key) && dflt) return *dflt;
    const json& v = at(key);
    if (v.is_boolean()) return v.get<bool>();
    return integerValue(v, key, 0, 1) == 1;
  }
  double number(std::string_view key, std::optional<double> dflt = std::nullopt) const {
    if (!has(key) && dflt) return *dflt;
    if (!at(key).is_number()) fail(key, "must be a number, got " + quote(at(key)));
    return at(key).get<double>();
  }
  std::string string(std::string_view key) const {
    if (!at(key).is_string()) fail(key, "must be a string, got " + quote(at(key)));
    return at(key).get<std::string>();
  }
  const json& array(std::string_view key) const {
    if (!at(key).is_array()) fail(key, "must be an array, got " + quote(at(key)));
    return at(key);
  }
  std::vector<std::string> strings(std::string_view key) const {
    std::vector<std::string> out;
    for (const json& v : array(key)) {
      if (!v.is_string()) fail(key, "must be an array of strings, got " + quote(v));
      out.push_back(v.get<std::string>());
    }
    return out;
  }
  // A shape: 1 to 4 sizes, each 1..kMaxNetworkSize, with at most kMaxNetworkSize elements in all.
  std::vector<std::int64_t> dims(std::string_view key) const {
    std::vector<std::int64_t> d;
    std::int64_t elements = 1;
    for (const json& v : array(key)) {
      d.push_back(integerValue(v, key, 1, kMaxNetworkSize));
      elements *= d.back();  // both factors <= 2^31: no overflow before the check
      if (elements > kMaxNetworkSize)
        fail(key, "holds more than " + std::to_string(kMaxNetworkSize) + " elements");
    }
    if (d.empty() || d.size() > 4) fail(key, "must list 1 to 4 sizes (NCHW), got " + quote(at(key)));
    return d;
  }
  // A shape with its count field ("output_dim" and "output_dim_num").
  std::vector<std::int64_t> dimsWithCount(const std::string& key) const {
    std::vector<std::int64_t> d = dims(key);
    const std::int64_t n = integer(key + "_num", 1, 4);
    if (n != static_cast<std::int64_t>(d.size()))
      fail(key + "_num",
           std::to_string(n) + ", but " + key + " lists " + std::to_string(d.size()) + " sizes");
    return d;
  }

 private:
  std::int64_t integerValue(const json& v, std::string_view key, std::int64_t lo, std::int64_t hi) const {
    if (!v.is_number_integer()) fail(key, "must be an integer, got " + quote(v));
    const bool tooBig =
        v.is_number_unsigned() &&
        v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    const std::int64_t x = tooBig ? std::numeric_limits<std::int64_t>::max() : v.get<std::int64_t>();
    if (x < lo || x > hi)
      fail(key, quote(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
  }
};

std::string nodeWhere(std::string_view origin, int index, std::string_view name) {
  return std::string(origin) + ": node " + std::to_string(index) + " '" + std::string(name) + "'";
}

// The names a node lists besides the indices: checked against the indices once every node is read.
struct LinkNames {
  std::vector<std::string> providers, consumers;
};

std::vector<int> readLinks(const FieldReader& r, const std::string& side, int nodeCount,
                           std::vector<std::string>& names) {
  std::vector<int> out;
  for (const json& v : r.array(side + "_index")) {
    if (!v.is_number_integer()) r.fail(side + "_index", "must be an array of integers, got " + quote(v));
    // nlohmann keeps a non-negative integer as unsigned: anything else is negative.
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= static_cast<std::uint64_t>(nodeCount))
      r.fail(side + "_index",
             quote(v) + " is not a node (node_list has " + std::to_string(nodeCount) + ", numbered from 0)");
    out.push_back(static_cast<int>(v.get<std::uint64_t>()));
  }
  const std::int64_t n = r.integer(side + "_num", 0, nodeCount);
  if (n != static_cast<std::int64_t>(out.size()))
    r.fail(side + "_num", std::to_string(n) + ", but " + side + "_index lists " + std::to_string(out.size()));
  // PIMCOMP-NN leaves the name list out when it is empty (the input's providers, the output's consumers).
  if (r.has(side) || n > 0) names = r.strings(side);
  if (names.size() != out.size())
    r.fail(side, "lists " + std::to_string(names.size()) + " names, but " + side + "_index lists " +
                     std::to_string(out.size()) + " indices");
  return out;
}

/// The sliding-window fields CONV and POOL share (kernel, stride, pads), under the same names.
template <class Params>
void readWindow(const FieldReader& p, Params& c) {
  constexpr std::int64_t M = kMaxNetworkSize;
  c.kernel_h = p.integer("kernel_h", 1, M);
  c.kernel_w = p.integer("kernel_w", 1, M);
  c.stride_h = p.integer("stride_h", 1, M);
  c.stride_w = p.integer("stride_w", 1, M);
  c.pad_h0 = p.integer("pad_h0", 0, M);
  c.pad_h1 = p.integer("pad_h1", 0, M);
  c.pad_w0 = p.integer("pad_w0", 0, M);
  c.pad_w1 = p.integer("pad_w1", 0, M);
}

ConvParams readConv(const FieldReader& p) {
  constexpr std::int64_t M = kMaxNetworkSize;
  ConvParams c;
  readWindow(p, c);
  // Some shipped PIMCOMP-NN files leave out dilation and group (spec: default 1).
  c.dilation_h = p.integer("dilation_h", 1, M, 1);
  c.dilation_w = p.integer("dilation_w", 1, M, 1);
  c.group = p.integer("group", 1, M, 1);
  c.input_channel = p.integer("input_channel", 1, M);
  c.output_channel = p.integer("output_channel", 1, M);
  c.with_bias = p.flag("with_bias");
  return c;
}

PoolParams readPool(const FieldReader& p) {
  PoolParams c;
  readWindow(p, c);
  c.method = p.integer("pool_method", 0, 1) == 0 ? PoolMethod::Max : PoolMethod::Average;
  c.global = p.flag("global");
  return c;
}

void readParams(const FieldReader& r, NetworkNode& n) {
  if (n.op == NetworkOp::Conv) n.conv = readConv(r.object("param"));
  if (n.op == NetworkOp::Pool) n.pool = readPool(r.object("param"));
  if (n.op == NetworkOp::Fc) {
    const FieldReader p = r.object("param");
    n.fc.num_input = p.integer("num_input", 1, kMaxNetworkSize);
    n.fc.num_output = p.integer("num_output", 1, kMaxNetworkSize);
    n.fc.with_bias = p.flag("with_bias");
  }
  if (n.op == NetworkOp::Eltwise) {
    const FieldReader p = r.object("param");
    const std::int64_t t = p.integer("eletype", 0, 255);
    if (t != 2 && t != 4) p.fail("eletype", std::to_string(t) + " is neither 2 (add, sum, mul) nor 4 (sub)");
    n.eltwise = static_cast<EltwiseType>(t);
  }
  if (n.op != NetworkOp::Conv && n.op != NetworkOp::Fc) return;
  n.with_bn = r.flag("with_bn", false);
  n.with_act = r.flag("with_act", false);
  // PIMCOMP-NN writes -1 without a fused activation and 0 (ReLU), 1 (Tanh) or 2 (Sigmoid) with one.
  const std::int64_t act = r.integer("act_type", -1, 2, n.with_act ? 0 : -1);
  if (n.with_act && act < 0) r.fail("act_type", "-1 (none), but with_act is 1");
  n.act_type = n.with_act ? static_cast<ActType>(act) : ActType::None;
  n.with_clip = r.flag("with_clip", false);
  // PIMCOMP-NN writes bounds (+-1e7) even without a clip; they only mean something with one.
  n.clip_min = r.number("clip_min", n.with_clip ? std::nullopt : std::optional<double>(0));
  n.clip_max = r.number("clip_max", n.with_clip ? std::nullopt : std::optional<double>(0));
}

NetworkNode readNode(const json& j, int position, int nodeCount, std::string_view origin, LinkNames& names) {
  const std::string at = std::string(origin) + ": node " + std::to_string(position);
  if (!j.is_object()) throw InputError(at + ": must be an object, got " + quote(j));
  NetworkNode n;
  n.index = position;
  n.name = FieldReader(j, at).string("name");
  if (n.name.empty()) FieldReader(j, at).fail("name", "must not be empty");
  const FieldReader r(j, nodeWhere(origin, position, n.name));
  if (const std::int64_t index = r.integer("index", 0, std::numeric_limits<int>::max()); index != position)
    r.fail("index", std::to_string(index) + ", but the node is number " + std::to_string(position) +
                        " in node_list (index must be the node's position)");
  const std::string op = r.string("operation");
  const auto parsed = parseNetworkOp(op);
  if (!parsed) {
    std::string known;
    for (std::string_view name : kOpNames) known += (known.empty() ? "" : ", ") + std::string(name);
    r.fail("operation", "unknown operation '" + op + "' (known: " + known + ")");
  }
  n.op = *parsed;
  n.output_dim = r.dimsWithCount("output_dim");
  // PIMCOMP-NN writes no input_dim for the network's input.
  n.input_dim = n.op == NetworkOp::Input && !r.has("input_dim") ? n.output_dim : r.dimsWithCount("input_dim");
  n.providers = readLinks(r, "provider", nodeCount, names.providers);
  n.consumers = readLinks(r, "consumer", nodeCount, names.consumers);
  if ((n.op == NetworkOp::Input) != n.providers.empty())
    r.fail("provider_num", n.op == NetworkOp::Input ? "an OP_INPUT has no provider"
                                                    : "0, but only an OP_INPUT has no provider");
  n.bitwidth = static_cast<int>(r.integer("bitwidth", 1, 64));
  readParams(r, n);
  return n;
}

// Links are mutual and named right: A lists B as a provider exactly as often as B lists A as a consumer, and
// each name matches the node its index points to. Dangling indices were refused while reading.
void checkLinks(const Network& net, const std::vector<LinkNames>& names) {
  std::unordered_map<std::string_view, int> byName;
  for (const NetworkNode& n : net.nodes)
    if (const auto [it, fresh] = byName.emplace(n.name, n.index); !fresh)
      throw InputError(nodeWhere(net.origin, n.index, n.name) + ": name: also the name of node " +
                       std::to_string(it->second) + " (names must be unique)");
  for (const NetworkNode& n : net.nodes) {
    const std::string where = nodeWhere(net.origin, n.index, n.name);
    for (std::size_t k = 0; k < n.providers.size(); ++k) {
      const NetworkNode& p = net.nodes[n.providers[k]];
      if (names[n.index].providers[k] != p.name)
        throw InputError(where + ": provider[" + std::to_string(k) + "]: '" + names[n.index].providers[k] +
                         "', but provider_index[" + std::to_string(k) + "] is node " +
                         std::to_string(p.index) + " '" + p.name + "'");
      if (std::count(n.providers.begin(), n.providers.end(), p.index) !=
          std::count(p.consumers.begin(), p.consumers.end(), n.index))
        throw InputError(where + ": provider_index: node " + std::to_string(p.index) + " '" + p.name +
                         "' does not list this node as a consumer as often (consumer_index)");
    }
    for (std::size_t k = 0; k < n.consumers.size(); ++k) {
      const NetworkNode& c = net.nodes[n.consumers[k]];
      if (names[n.index].consumers[k] != c.name)
        throw InputError(where + ": consumer[" + std::to_string(k) + "]: '" + names[n.index].consumers[k] +
                         "', but consumer_index[" + std::to_string(k) + "] is node " +
                         std::to_string(c.index) + " '" + c.name + "'");
      if (std::find(c.providers.begin(), c.providers.end(), n.index) == c.providers.end())
        throw InputError(where + ": consumer_index: node " + std::to_string(c.index) + " '" + c.name +
                         "' does not list this node as a provider (provider_index)");
    }
  }
}

// The graph is acyclic (a cycle is printed whole) and the list topological: every provider comes before
// its consumer, so one pass in list order sees each input before it is used.
void checkOrder(const Network& net) {
  const std::size_t n = net.nodes.size();
  std::vector<int> pending(n);  // Kahn's algorithm: providers not yet placed
  std::vector<int> ready;
  for (std::size_t i = 0; i < n; ++i)
    if ((pending[i] = static_cast<int>(net.nodes[i].providers.size())) == 0)
      ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    const int i = ready.back();
    ready.pop_back();
    for (int c : net.nodes[i].consumers)
      if (--pending[c] == 0) ready.push_back(c);
  }
  // A node left over has a provider left over; following those must come back to a node already passed.
  for (std::size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) continue;
    std::vector<int> path{static_cast<int>(i)};
    for (;;) {
      const auto& provs = net.nodes[path.back()].providers;
      const int next = *std::find_if(provs.begin(), provs.end(), [&](int p) { return pending[p] > 0; });
      const auto again = std::find(path.begin(), path.end(), next);
      if (again == path.end()) {
        path.push_back(next);
        continue;
      }
      // Each node on the path is provided by the one after it: the data flows from the end to *again.
      std::string cycle = "'" + net.nodes[next].name + "'";
      for (auto it = path.rbegin(); it.base() != again + 1; ++it)
        cycle += " -> '" + net.nodes[*it].name + "'";
      cycle += " -> '" + net.nodes[next].name + "'";
      throw InputError(nodeWhere(net.origin, next, net.nodes[next].name) + ": provider_index: cycle " +
                       cycle + " (a network is acyclic)");
    }
  }
  for (const NetworkNode& node : net.nodes)
    for (int p : node.providers)
      if (p >= node.index)
        throw InputError(nodeWhere(net.origin, node.index, node.name) + ": provider_index: node " +
                         std::to_string(p) + " '" + net.nodes[p].name +
                         "' comes after its consumer (node_list must be in topological order)");
}

// One output size of a sliding window: floor((in + pad0 + pad1 - dil*(k-1) - 1) / stride) + 1, or 0 when
// the window is wider than the padded input. Every operand is <= 2^31, so nothing overflows.
std::int64_t windowOut(std::int64_t in, std::int64_t pad0, std::int64_t pad1, std::int64_t dil,
                       std::int64_t k, std::int64_t stride) {
  const std::int64_t span = in + pad0 + pad1 - dil * (k - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

std::int64_t elements(const std::vector<std::int64_t>& d) {
  std::int64_t e = 1;
  for (auto x : d) e *= x;  // at most kMaxNetworkSize, checked while reading
  return e;
}

// A layer's weights, like a tensor, hold at most kMaxNetworkSize elements, so that a layer's MACs (output
// elements x weights per output) fit in 62 bits.
void checkWeights(const FieldReader& r, std::initializer_list<std::int64_t> factors) {
  std::int64_t w = 1;
  for (std::int64_t f : factors)
    if ((w *= f) > kMaxNetworkSize)  // both factors <= 2^31: no overflow before the check
      r.fail("param", "the layer's weights hold more than " + std::to_string(kMaxNetworkSize) + " elements");
}

void require4d(const FieldReader& r, const NetworkNode& n) {
  const std::string why = "must be 4-D (NCHW) for " + std::string(networkOpName(n.op));
  if (n.input_dim.size() != 4) r.fail("input_dim", why);
  if (n.output_dim.size() != 4) r.fail("output_dim", why);
}

// output_dim against what a window of `c` makes of input_dim: N x channels x H x W.
void checkWindow(const FieldReader& r, const NetworkNode& n, const ConvParams& c, std::int64_t channels) {
  const std::vector<std::int64_t> expected{
      n.input_dim[0], channels,
      windowOut(n.input_dim[2], c.pad_h0, c.pad_h1, c.dilation_h, c.kernel_h, c.stride_h),
      windowOut(n.input_dim[3], c.pad_w0, c.pad_w1, c.dilation_w, c.kernel_w, c.stride_w)};
  if (n.output_dim == expected) return;
  auto pair = [](std::int64_t h, std::int64_t w) { return std::to_string(h) + "x" + std::to_string(w); };
  r.fail("output_dim", dimsText(n.output_dim) + ", but input " + dimsText(n.input_dim) + " with kernel " +
                           pair(c.kernel_h, c.kernel_w) + ", stride " + pair(c.stride_h, c.stride_w) +
                           ", pads " + pair(c.pad_h0, c.pad_h1) + " (top/bottom) " +
                           pair(c.pad_w0, c.pad_w1) + " (left/right), dilation " +
                           pair(c.dilation_h, c.dilation_w) + " gives " + dimsText(expected) +
                           " (floor((in + pad0 + pad1 - dil*(k-1) - 1)/stride) + 1)");
}

void checkConv(const FieldReader& r, const NetworkNode& n) {
  require4d(r, n);
  const ConvParams& c = n.conv;
  if (c.input_channel != n.input_dim[1])
    r.fail("param.input_channel", std::to_string(c.input_channel) + ", but input_dim " +
                                      dimsText(n.input_dim) + " has " + std::to_string(n.input_dim[1]));
  if (c.output_channel != n.output_dim[1])
    r.fail("param.output_channel", std::to_string(c.output_channel) + ", but output_dim " +
                                       dimsText(n.output_dim) + " has " + std::to_string(n.output_dim[1]));
  if (c.input_channel % c.group != 0 || c.output_channel % c.group != 0)
    r.fail("param.group", std::to_string(c.group) + " does not divide input_channel " +
                              std::to_string(c.input_channel) + " and output_channel " +
                              std::to_string(c.output_channel));
  checkWeights(r, {c.kernel_h, c.kernel_w, c.input_channel / c.group, c.output_channel});
  checkWindow(r, n, c, c.output_channel);
}

void checkPool(const FieldReader& r, const NetworkNode& n) {
  require4d(r, n);
  const PoolParams& p = n.pool;
  if (p.global && (p.kernel_h != n.input_dim[2] || p.kernel_w != n.input_dim[3]))
    r.fail("param.kernel_h", "a global pool's kernel must be its input's " + std::to_string(n.input_dim[2]) +
                                 "x" + std::to_string(n.input_dim[3]));
  const ConvParams window{.kernel_h = p.kernel_h,
                          .kernel_w = p.kernel_w,
                          .stride_h = p.stride_h,
                          .stride_w = p.stride_w,
                          .pad_h0 = p.pad_h0,
                          .pad_h1 = p.pad_h1,
                          .pad_w0 = p.pad_w0,
                          .pad_w1 = p.pad_w1};
  checkWindow(r, n, window, n.input_dim[1]);  // a pool keeps the channels
}

void checkFc(const FieldReader& r, const NetworkNode& n) {
  if (n.input_dim.size() < 2) r.fail("input_dim", "must be [N, features] or NCHW for OP_FC");
  checkWeights(r, {n.fc.num_input, n.fc.num_output});
  const std::int64_t features = elements(n.input_dim) / n.input_dim[0];
  if (n.fc.num_input != features)
    r.fail("param.num_input", std::to_string(n.fc.num_input) + ", but input_dim " + dimsText(n.input_dim) +
                                  " holds " + std::to_string(features) + " features per sample");
  if (n.output_dim != std::vector<std::int64_t>{n.input_dim[0], n.fc.num_output})
    r.fail("output_dim", dimsText(n.output_dim) + ", but an FC outputs N x num_output = " +
                             std::to_string(n.input_dim[0]) + "x" + std::to_string(n.fc.num_output));
}

// Ops whose output has their input's shape, and those that only rearrange the elements.
constexpr std::array kSameShape{NetworkOp::Eltwise, NetworkOp::Relu,    NetworkOp::Tanh,
                                NetworkOp::Sigmoid, NetworkOp::Dropout, NetworkOp::Lrn,
                                NetworkOp::Softmax, NetworkOp::Bn,      NetworkOp::Clip};
constexpr std::array kSameElements{NetworkOp::Flatten,   NetworkOp::Reshape,   NetworkOp::Squeeze,
                                   NetworkOp::Unsqueeze, NetworkOp::Transpose, NetworkOp::Shuffle};

template <std::size_t N>
bool contains(const std::array<NetworkOp, N>& ops, NetworkOp op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// Shapes follow from the providers: input_dim is what the (first) provider outputs, and CONV, FC and POOL
// outputs are what their parameters make of it; element-wise ops keep the shape, reshapes the element count.
void checkShapes(const Network& net, const json& list) {
  for (const NetworkNode& n : net.nodes) {
    const FieldReader r(list[n.index], nodeWhere(net.origin, n.index, n.name));
    // A concat's or a matmul's inputs differ from one another; every other op's equal the first's (an
    // eltwise's: all of them).
    std::size_t checked = std::min<std::size_t>(1, n.providers.size());
    if (n.op == NetworkOp::Eltwise) checked = n.providers.size();
    if (n.op == NetworkOp::Concat || n.op == NetworkOp::MatMul) checked = 0;
    for (std::size_t k = 0; k < checked; ++k) {
      const NetworkNode& p = net.nodes[n.providers[k]];
      if (p.output_dim != n.input_dim)
        r.fail("input_dim", dimsText(n.input_dim) + ", but provider " + std::to_string(p.index) + " '" +
                                p.name + "' outputs " + dimsText(p.output_dim));
    }
    if (n.op == NetworkOp::Conv) checkConv(r, n);
    if (n.op == NetworkOp::Fc) checkFc(r, n);
    if (n.op == NetworkOp::Pool) checkPool(r, n);
    const std::string op(networkOpName(n.op));
    if (contains(kSameShape, n.op) && n.output_dim != n.input_dim)
      r.fail("output_dim",
             dimsText(n.output_dim) + ", but " + op + " keeps its input's shape " + dimsText(n.input_dim));
    if (contains(kSameElements, n.op) && elements(n.output_dim) != elements(n.input_dim))
      r.fail("output_dim", dimsText(n.output_dim) + ", but " + op + " keeps the element count of input_dim " +
                               dimsText(n.input_dim));
  }
}

std::optional<ReshapeInfo> readReshapeInfo(const json& doc, const Network& net) {
  const FieldReader top(doc, net.origin);
  if (!top.has("reshape_info")) return std::nullopt;
  const FieldReader r = top.object("reshape_info");
  ReshapeInfo info{r.string("name"), r.dims("input_dim"), r.dims("output_dim")};
  if (!net.find(info.name)) r.fail("name", "'" + info.name + "' is not a node");
  if (elements(info.input_dim) != elements(info.output_dim))
    r.fail("output_dim", dimsText(info.output_dim) + " does not hold the elements of input_dim " +
                             dimsText(info.input_dim));
  return info;
}

std::string networkDir() { return dataDir() + "/networks"; }

}  // namespace

std::string_view networkOpName(NetworkOp op) {
  const auto i = static_cast<std::size_t>(op);
  return i < kOpNames.size() ? kOpNames[i] : "OP_?";
}

std::optional<NetworkOp> parseNetworkOp(std::string_view name) {
  const auto it = std::find(kOpNames.begin(), kOpNames.end(), name);
  if (it == kOpNames.end()) return std::nullopt;
  return static_cast<NetworkOp>(it - kOpNames.begin());
}

const NetworkNode* Network::find(std::string_view name) const {
  for (const NetworkNode& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

Network parseNetworkJson(std::string_view text, std::string_view origin) {
  const json doc = parseJsonInput<json>(text, origin);
  Network net;
  net.origin = std::string(origin);
  if (!doc.is_object()) throw InputError(net.origin + ": must be a JSON object with a node_list");
  const json& list = FieldReader(doc, net.origin).array("node_list");
  if (list.empty()) FieldReader(doc, net.origin).fail("node_list", "is empty");
  if (list.size() > static_cast<std::size_t>(kMaxNetworkSize))
    FieldReader(doc, net.origin)
        .fail("node_list", "has more than " + std::to_string(kMaxNetworkSize) + " nodes");
  const int count = static_cast<int>(list.size());
  std::vector<LinkNames> names(list.size());
  for (int i = 0; i < count; ++i) net.nodes.push_back(readNode(list[i], i, count, origin, names[i]));
  checkLinks(net, names);
  checkOrder(net);
  checkShapes(net, list);
  net.reshape_info = readReshapeInfo(doc, net);
  return net;
}

Network loadNetworkFile(const std::string& path) {
  return parseNetworkJson(readInputFile(path, "network file"), path);
}

std::vector<ConvLayerShape> convLayers(const Network& net) {
  std::vector<ConvLayerShape> out;
  for (const NetworkNode& n : net.nodes) {
    ConvLayerShape l;
    l.name = n.name;
    l.N = n.output_dim[0];
    if (n.op == NetworkOp::Fc) {
      l.C = n.fc.num_input;
      l.K = n.fc.num_output;
    } else if (n.op == NetworkOp::Conv) {
      const ConvParams& c = n.conv;
      l.R = c.kernel_w, l.S = c.kernel_h, l.P = n.output_dim[3], l.Q = n.output_dim[2];
      l.C = c.input_channel, l.K = c.output_channel;
      l.stride_w = c.stride_w, l.stride_h = c.stride_h, l.dil_w = c.dilation_w, l.dil_h = c.dilation_h;
      l.pad_w0 = c.pad_w0, l.pad_w1 = c.pad_w1, l.pad_h0 = c.pad_h0, l.pad_h1 = c.pad_h1;
      l.group = c.group;
    } else {
      continue;
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::int64_t convLayerMacs(const ConvLayerShape& l) {
  return l.R * l.S * l.P * l.Q * (l.C / l.group) * l.K * l.N;
}

std::vector<std::string> builtinNetworkNames() {
  namespace fs = std::filesystem;
  const fs::path dir = networkDir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": network directory not found");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string builtinNetworkPath(std::string_view name) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(networkDir()) / (std::string(name) + ".json");
  std::error_code ec;
  // A name is a file name in the directory, never a path: "../x" must not reach outside it.
  if (!name.empty() && name.find_first_of("/\\") == std::string_view::npos && name.front() != '.' &&
      fs::is_regular_file(file, ec))
    return file.string();
  std::string known;
  for (const std::string& n : builtinNetworkNames()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("network '" + std::string(name) + "': not a shipped network (known: " + known + ")");
}

std::string networkStem(const Network& net) {
  std::string s = net.origin;
  if (const auto slash = s.find_last_of('/'); slash != std::string::npos) s = s.substr(slash + 1);
  for (const char* ext : {".json", ".onnx"})
    if (s.size() > 5 && s.ends_with(ext)) s.resize(s.size() - 5);
  return s.empty() ? std::string("network") : s;
}

std::string networkDigest(const Network& net) {
  std::string text;
  auto add = [&text](std::int64_t v) { text += std::to_string(v) + ","; };
  auto addAll = [&add](const auto& values) {
    for (auto v : values) add(v);
  };
  for (const NetworkNode& n : net.nodes) {
    text += n.name + "|" + std::string(networkOpName(n.op)) + "|";
    addAll(n.input_dim), addAll(n.output_dim), addAll(n.providers), addAll(n.consumers);
    const ConvParams& c = n.conv;
    addAll(std::array{c.kernel_h, c.kernel_w, c.stride_h, c.stride_w, c.pad_h0, c.pad_h1, c.pad_w0, c.pad_w1,
                      c.dilation_h, c.dilation_w, c.group, c.input_channel, c.output_channel});
    addAll(std::array{n.fc.num_input, n.fc.num_output});
    const PoolParams& p = n.pool;
    addAll(
        std::array{p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.pad_h0, p.pad_h1, p.pad_w0, p.pad_w1});
    addAll(std::array<std::int64_t, 10>{c.with_bias, n.fc.with_bias, static_cast<int>(p.method), p.global,
                                        static_cast<int>(n.eltwise), n.with_bn, n.with_act,
                                        static_cast<int>(n.act_type), n.with_clip, n.bitwidth});
    text += std::to_string(n.clip_min) + "," + std::to_string(n.clip_max) + "\n";
  }
  if (net.reshape_info) {
    text += "reshape|" + net.reshape_info->name + "|";
    addAll(net.reshape_info->input_dim), addAll(net.reshape_info->output_dim);
  }
  return sha256Hex(text).substr(0, 16);
}

}  // namespace pim
