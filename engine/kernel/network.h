// SPDX-License-Identifier: Apache-2.0
// Neural networks as data: PIMCOMP-NN's ONNX-derived node list (../shared/specs/crossbar.md, "Model input"),
// the one format both the conv mapper (every CONV and FC layer, issue 20) and crossbar compilation (the whole
// graph, issue 19) read. The shipped networks are datasets/networks/*.json, written by
// scripts/make_networks.py. A file that loads is a consistent graph: every link is mutual, the list is
// topological and every CONV, FC and POOL output shape follows from its input and parameters, so a consumer
// never re-checks what it reads.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pim {

/// The spec's operations and every other one PIMCOMP-NN's frontend table maps an ONNX op to (OP_BN, OP_CLIP,
/// OP_MATMUL, ...); any other name is refused.
enum class NetworkOp : std::uint8_t {
  Input,
  Conv,
  Fc,
  Pool,
  Eltwise,
  Concat,
  Relu,
  Tanh,
  Sigmoid,
  Flatten,
  Reshape,
  Dropout,
  Lrn,
  Softmax,
  Pad,
  Shuffle,
  Transpose,
  Bn,
  Clip,
  Squeeze,
  MatMul,
  Shape,
  Gather,
  Unsqueeze
};
/// The file's spelling: "OP_CONV".
std::string_view networkOpName(NetworkOp op);
std::optional<NetworkOp> parseNetworkOp(std::string_view name);

/// A fused activation (act_type): the frontend folds a Relu, Tanh or Sigmoid into the CONV/FC before it.
enum class ActType : std::int8_t { None = -1, Relu = 0, Tanh = 1, Sigmoid = 2 };
enum class PoolMethod : std::uint8_t { Max = 0, Average = 1 };
/// eletype: PIMCOMP-NN writes 2 for Add, Sum and Mul alike and 4 for Sub.
enum class EltwiseType : std::uint8_t { Add = 2, Sub = 4 };

/// OP_CONV's param, the file's names. Pads: h0 top, h1 bottom, w0 left, w1 right.
struct ConvParams {
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  std::int64_t pad_h0 = 0, pad_h1 = 0, pad_w0 = 0, pad_w1 = 0;
  std::int64_t dilation_h = 1, dilation_w = 1, group = 1;
  std::int64_t input_channel = 0, output_channel = 0;
  bool with_bias = false;
  bool operator==(const ConvParams&) const = default;
};

struct FcParams {
  std::int64_t num_input = 0, num_output = 0;
  bool with_bias = false;
  bool operator==(const FcParams&) const = default;
};

/// OP_POOL's param; a global pool's kernel is its input's H x W.
struct PoolParams {
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  std::int64_t pad_h0 = 0, pad_h1 = 0, pad_w0 = 0, pad_w1 = 0;
  PoolMethod method = PoolMethod::Max;
  bool global = false;
  bool operator==(const PoolParams&) const = default;
};

/// One node. Dims are NCHW (2-D [N, features] for FC and after a flatten). providers and consumers are node
/// indices in the file's order (the names the file also lists are checked against them, not kept).
struct NetworkNode {
  int index = 0;
  std::string name;
  NetworkOp op = NetworkOp::Input;
  std::vector<std::int64_t> input_dim, output_dim;  // an INPUT without input_dim gets its output_dim
  std::vector<int> providers, consumers;
  ConvParams conv;                         // op == Conv
  FcParams fc;                             // op == Fc
  PoolParams pool;                         // op == Pool
  EltwiseType eltwise = EltwiseType::Add;  // op == Eltwise
  bool with_bn = false, with_act = false;  // CONV/FC: batch norm / activation folded in
  ActType act_type = ActType::None;        // None unless with_act
  bool with_clip = false;                  // CONV/FC: a folded Clip (ReLU6) with these bounds
  double clip_min = 0, clip_max = 0;
  int bitwidth = 16;
};

/// The flatten or reshape in front of the first FC when its input is not 2-D (the FC's name and the dims).
struct ReshapeInfo {
  std::string name;
  std::vector<std::int64_t> input_dim, output_dim;
};

struct Network {
  std::string origin;  // the file (or the origin given to parseNetworkJson), for messages
  std::vector<NetworkNode> nodes;
  std::optional<ReshapeInfo> reshape_info;
  /// The node named `name`, or nullptr.
  const NetworkNode* find(std::string_view name) const;
};

/// Largest size accepted: 2^31 for a dim, a kernel, stride, pad or channel count, and a tensor's element
/// count. The largest tensor of the shipped networks is 3.2 M elements (VGG-16's first convs), so this only
/// stops absurd input before products of sizes overflow.
inline constexpr std::int64_t kMaxNetworkSize = std::int64_t{1} << 31;

/// Parses a node list. Throws InputError, one line "<origin>: node I 'NAME': FIELD: problem" (or
/// "<origin>: FIELD: problem" for the document's own fields), for malformed JSON (through parseJsonInput:
/// syntax, depth, a duplicate key), a missing or ill-typed field, an index other than the node's position,
/// an unknown operation, a dangling or one-sided provider/consumer link, a count other than its list's
/// length, a cycle, a provider listed after its consumer, a shape that does not follow from the provider's
/// output and the parameters, or a zero or absurd size.
Network parseNetworkJson(std::string_view text, std::string_view origin);

/// parseNetworkJson of a file, checked to be a regular file first (a directory or FIFO is refused by name).
Network loadNetworkFile(const std::string& path);

/// A CONV or FC node as the conv mapper's seven loops (../shared/specs/pim-optimizer.md, "Workload"):
/// R, P along the width (kernel_w, output W), S, Q along the height, C input channels (all groups), K
/// output channels, N batch. An FC is R = S = P = Q = 1, C = num_input, K = num_output.
struct ConvLayerShape {
  std::string name;
  std::int64_t R = 1, S = 1, P = 1, Q = 1, C = 1, K = 1, N = 1;
  std::int64_t stride_w = 1, stride_h = 1, dil_w = 1, dil_h = 1;
  std::int64_t pad_w0 = 0, pad_w1 = 0, pad_h0 = 0, pad_h1 = 0;
  std::int64_t group = 1;  // > 1: grouped; == C == K: depthwise (each output channel reads C / group)
  bool operator==(const ConvLayerShape&) const = default;
};

/// Every CONV and FC node, in node order.
std::vector<ConvLayerShape> convLayers(const Network& net);

/// Multiply-accumulates of one layer: R*S*P*Q*(C/group)*K*N.
std::int64_t convLayerMacs(const ConvLayerShape& l);

/// The network's short name: its origin's file stem ("datasets/networks/vgg16.json" -> "vgg16"), "network"
/// when it has none.
std::string networkStem(const Network& net);

/// A digest of everything a compile reads of `net` (every node's name, operation, dims, edges and
/// parameters; not its origin): stored results of a network are keyed by it. 16 hex digits of a SHA-256.
std::string networkDigest(const Network& net);

/// The shipped networks: the names of datasets/networks/*.json in the data directory ($PIMSCOPE_DATA if
/// set, else the source tree's datasets/), sorted. Throws InputError when the directory is missing.
std::vector<std::string> builtinNetworkNames();

/// The file of shipped network `name` ("resnet18" -> <data>/networks/resnet18.json). Throws InputError
/// listing the shipped names when there is no such file (or the name is a path).
std::string builtinNetworkPath(std::string_view name);

}  // namespace pim
