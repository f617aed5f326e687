// SPDX-License-Identifier: Apache-2.0
// Reading an ONNX model for PIMCOMP-NN's frontend (engine/kernel/onnx_network.h): parsing, the checks and the
// batch-1 shape inference frontend.py does before its passes (engine/kernel/onnx_frontend.h), then the JSON
// loader's checks on the result (../shared/specs/crossbar.md, "Model input: the ONNX-derived node list").
#include "engine/kernel/onnx_network.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/kernel/onnx_frontend.h"

namespace pim {
namespace {

using Dims = std::vector<std::int64_t>;

// ONNX's messages may span lines (and quote a file's names); an InputError is one line.
std::string oneLine(std::string s) {
  std::replace_if(
      s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string nodeName(const onnx::NodeProto& n) { return n.output_size() > 0 ? n.output(0) : n.name(); }

std::string onnxWhere(std::string_view origin, int index, const onnx::NodeProto& n) {
  return std::string(origin) + ": ONNX node " + std::to_string(index) + " '" +
         onnx_frontend::printable(nodeName(n)) + "' (" + onnx_frontend::printable(n.op_type()) + ")";
}

// ONNX 1.12's Conv and pool inference divides by strides unchecked (a zero stride is a SIGFPE inside
// libonnx), so a window's sizes are checked before it runs.
void checkWindowAttributes(const onnx::NodeProto& n, const std::string& where) {
  if (n.op_type() != "Conv" && n.op_type() != "MaxPool" && n.op_type() != "AveragePool") return;
  for (const auto& a : n.attribute()) {
    const bool sizes = a.name() == "kernel_shape" || a.name() == "strides" || a.name() == "dilations";
    if (!sizes && a.name() != "pads" && a.name() != "group") continue;
    if (a.name() == "group" ? a.type() != onnx::AttributeProto::INT : a.type() != onnx::AttributeProto::INTS)
      throw InputError(where + ": " + a.name() + ": must be an integer" +
                       (a.name() == "group" ? "" : " list"));
    const std::int64_t least = a.name() == "pads" ? 0 : 1;
    for (const std::int64_t v : a.name() == "group"
                                    ? std::vector<std::int64_t>{a.i()}
                                    : std::vector<std::int64_t>(a.ints().begin(), a.ints().end()))
      if (v < least)
        throw InputError(where + ": " + a.name() + ": " + std::to_string(v) + " is below " +
                         std::to_string(least));
  }
}

// The frontend stops at the first op outside its table; refusing it (and an input no tensor feeds) before
// shape inference names the node instead of an inference failure about it.
void checkOnnxNodes(const onnx::GraphProto& g, std::string_view origin) {
  std::unordered_set<std::string> tensors;
  for (const auto& v : g.input()) tensors.insert(v.name());
  for (const auto& t : g.initializer()) tensors.insert(t.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (n.output_size() == 0 || n.output(0).empty())
      throw InputError(onnxWhere(origin, i, n) + ": output: the node has no output tensor to name it by");
    const bool onnxDomain = n.domain().empty() || n.domain() == "ai.onnx";
    if (!onnxDomain || (n.op_type() != "Constant" && !onnx_frontend::pimcompOp(n.op_type()))) {
      throw InputError(onnxWhere(origin, i, n) + ": op_type: unsupported operation '" +
                       onnx_frontend::printable(n.op_type()) + "'" +
                       (onnxDomain ? "" : " of domain '" + onnx_frontend::printable(n.domain()) + "'") +
                       " (PIMCOMP-NN's frontend maps Constant and " + onnx_frontend::pimcompOpList() + ")");
    }
    checkWindowAttributes(n, onnxWhere(origin, i, n));
    for (const std::string& in : n.input())
      if (!in.empty() && !tensors.contains(in))
        throw InputError(onnxWhere(origin, i, n) + ": input: tensor '" + onnx_frontend::printable(in) +
                         "' comes from no earlier node, graph input or initializer");
    for (const std::string& out : n.output()) tensors.insert(out);
  }
}

// A Conv without kernel_shape gets it from its weight's stored shape: ONNX's shape inference would read it
// from the weight's type and index dilations, strides and pads, sized by the data's rank, with the weight's
// (libonnx 1.13 reads past them when the two ranks differ); given as an attribute, it is checked against
// the data's rank instead.
void pinConvKernels(onnx::GraphProto& g, std::string_view origin) {
  std::unordered_map<std::string, std::vector<std::int64_t>> stored;
  for (const auto& t : g.initializer()) stored[t.name()].assign(t.dims().begin(), t.dims().end());
  for (const auto& in : g.input()) {
    if (stored.contains(in.name()) || !in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      continue;
    std::vector<std::int64_t> dims;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) break;
      dims.push_back(d.dim_value());
    }
    if (dims.size() == static_cast<std::size_t>(in.type().tensor_type().shape().dim_size()))
      stored[in.name()] = std::move(dims);
  }
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto& n = *g.mutable_node(i);
    if (n.op_type() != "Conv" || n.input_size() < 2) continue;
    const auto& attrs = n.attribute();
    if (std::any_of(attrs.begin(), attrs.end(), [](const auto& a) { return a.name() == "kernel_shape"; }))
      continue;
    const std::string where = onnxWhere(origin, i, n);
    const auto w = stored.find(n.input(1));
    if (w == stored.end())
      throw InputError(where + ": kernel_shape: not given, and weight '" +
                       onnx_frontend::printable(n.input(1)) +
                       "' is no initializer or graph input with a fixed shape to read it from");
    if (w->second.size() < 3)
      throw InputError(where + ": weight '" + onnx_frontend::printable(n.input(1)) + "' has " +
                       std::to_string(w->second.size()) +
                       " dimensions; a convolution's weight is (out channels, in channels, kernel...)");
    onnx::AttributeProto* k = n.add_attribute();
    k->set_name("kernel_shape");
    k->set_type(onnx::AttributeProto::INTS);
    for (std::size_t d = 2; d < w->second.size(); ++d) {
      if (w->second[d] < 1)
        throw InputError(where + ": weight '" + onnx_frontend::printable(n.input(1)) +
                         "': kernel dimension " + std::to_string(w->second[d]) + " is below 1");
      k->add_ints(w->second[d]);
    }
  }
}

// frontend.py sets the first graph input's batch to 1 before inferring shapes; an initializer listed as an
// input (IR < 4) is a weight, not the data.
void setBatchOne(onnx::GraphProto& g) {
  std::unordered_set<std::string> weights;
  for (const auto& t : g.initializer()) weights.insert(t.name());
  for (auto& in : *g.mutable_input()) {
    if (weights.contains(in.name())) continue;
    if (in.type().has_tensor_type() && in.type().tensor_type().has_shape() &&
        in.type().tensor_type().shape().dim_size() > 0)
      in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(1);
    return;
  }
}

// What Reshape makes of `in` with target `t` (0 copies the input's size unless allowzero, -1 takes the
// rest), or nullopt.
std::optional<Dims> reshaped(const Dims& in, const onnx::TensorShapeProto& t, bool allowZero) {
  std::int64_t total = 1, known = 1;
  for (auto x : in) total *= x;
  Dims out;
  std::optional<std::size_t> rest;
  for (const auto& dim : t.dim()) {
    if (!dim.has_dim_value()) return std::nullopt;
    std::int64_t x = dim.dim_value();
    if (x == 0 && !allowZero && out.size() < in.size()) x = in[out.size()];
    if (x == -1 && !rest)
      rest = out.size();
    else if (x <= 0)
      return std::nullopt;
    else
      known *= x;
    out.push_back(x);
  }
  if (rest) out[*rest] = total % known == 0 ? total / known : 0;
  std::int64_t count = 1;
  for (auto x : out) count *= x;
  return count == total && count > 0 ? std::optional<Dims>(out) : std::nullopt;
}

// ONNX 1.12's Reshape inference reads only a constant target; data propagation (`values`) knows the target a
// Shape-Gather-Unsqueeze-Concat chain computes (PyTorch's view(x.size(0), -1)). Writes the shape that gives
// into each such Reshape's output, for the next inference pass to carry on; true if it wrote one.
bool completeReshapes(onnx::GraphProto& g,
                      const std::unordered_map<std::string, onnx::TensorShapeProto>& values) {
  std::unordered_map<std::string, onnx::ValueInfoProto*> info;
  for (auto* list : {g.mutable_input(), g.mutable_value_info(), g.mutable_output()})
    for (auto& v : *list) info.emplace(v.name(), &v);
  bool wrote = false;
  for (const auto& n : g.node()) {
    if (n.op_type() != "Reshape" || n.input_size() < 2 || !info.contains(n.input(0))) continue;
    const auto target = values.find(n.input(1));
    const auto in = onnx_frontend::knownDims(*info[n.input(0)]);
    if (target == values.end() || !in ||
        (info.contains(n.output(0)) && onnx_frontend::knownDims(*info[n.output(0)])))
      continue;
    bool allowZero = false;
    for (const auto& a : n.attribute()) allowZero = allowZero || (a.name() == "allowzero" && a.i() != 0);
    const auto out = reshaped(*in, target->second, allowZero);
    if (!out) continue;
    if (!info.contains(n.output(0))) {
      info[n.output(0)] = g.add_value_info();
      info[n.output(0)]->set_name(n.output(0));
    }
    auto* type = info[n.output(0)]->mutable_type()->mutable_tensor_type();
    type->set_elem_type(info[n.input(0)]->type().tensor_type().elem_type());
    type->mutable_shape()->clear_dim();
    for (auto x : *out) type->mutable_shape()->add_dim()->set_dim_value(x);
    wrote = true;
  }
  return wrote;
}

}  // namespace

std::string onnxNodeListJson(std::string_view bytes, std::string_view origin) {
  const std::string where(origin);
  onnx::ModelProto model;
  if (bytes.size() > INT_MAX || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InputError(where +
                     ": not an ONNX model (protobuf cannot parse it as a ModelProto: truncated, "
                     "corrupt or another format)");
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw InputError(where + ": graph: the model has no graph nodes (not an ONNX model, or an empty one)");
  checkOnnxNodes(model.graph(), origin);
  pinConvKernels(*model.mutable_graph(), origin);
  setBatchOne(*model.mutable_graph());
  try {
    // Strict, so that an inconsistent model is reported as such rather than as an unknown shape later; data
    // propagation for the Shape chains in front of a Reshape, whose shape completeReshapes then writes (each
    // pass fixes at least one Reshape, so this ends).
    for (int pass = 0; pass <= model.graph().node_size(); ++pass) {
      std::unordered_map<std::string, onnx::TensorShapeProto> values;
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(false, 1, true), &values);
      if (!completeReshapes(*model.mutable_graph(), values)) break;
    }
  } catch (const std::exception& e) {
    throw InputError(where + ": ONNX shape inference: " + oneLine(e.what()));
  }
  // protobuf does not check that a proto2 string is UTF-8; JSON needs it, so a stray byte becomes U+FFFD.
  return onnx_frontend::pimcompNodeList(model.graph(), origin)
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Network parseOnnxNetwork(std::string_view bytes, std::string_view origin) {
  const std::string list = onnxNodeListJson(bytes, origin);
  try {
    return parseNetworkJson(list, origin);
  } catch (const InputError& e) {  // it quotes names as they are: the file's may hold control characters
    throw InputError(oneLine(e.what()));
  }
}

Network loadOnnxNetwork(const std::string& path) {
  return parseOnnxNetwork(readInputFile(path, "model file", kMaxOnnxFileBytes), path);
}

Network loadNetworkModelFile(const std::string& path) {
  const bool onnx = path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
  return onnx ? loadOnnxNetwork(path) : loadNetworkFile(path);
}

}  // namespace pim
