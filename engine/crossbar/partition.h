// SPDX-License-Identifier: Apache-2.0
// Crossbar compiler, step 1: how each CONV/FC layer's weights unfold into matrices and split into array
// groups
// (../shared/specs/crossbar.md, "Layer partitioning"; tcad V, Table IV; pimcomp-nn CrossbarPartition.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/crossbar/accelerator.h"
#include "engine/kernel/network.h"

namespace pim::crossbar {

/// HT: batch pipeline (throughput); LL: element pipeline (latency). The greedy unfolding breaks ties on
/// load volume in HT and on extra memory in LL.
enum class PipelineMode { Ht, Ll };

/// Where one matrix dimension's factors come from: input channels I, output channels O and a power of the
/// kernel K (kernelPower 2 is K^2 = K_h*K_w, 1 is one kernel row K_w, or K_h for P; see unfoldedShape).
struct DimFactors {
  bool inputChannels = false;
  bool outputChannels = false;
  int kernelPower = 0;
};

/// A conv weight unfolding (H, W, P): P matrices of H x W. tcad Table IV lists five; `valid` says which
/// factor layouts are legal at all.
struct Unfolding {
  std::string_view name;  // "I,O,K2", ..., the spec's spelling without spaces or parentheses
  DimFactors h, w, p;
  bool operator==(const Unfolding& o) const { return name == o.name; }
};

/// Table IV, in its order (the greedy choice's final tie-break).
inline constexpr std::array<Unfolding, 5> kUnfoldings{{
    {"I,O,K2", {true, false, 0}, {false, true, 0}, {false, false, 2}},
    {"I,OK2,1", {true, false, 0}, {false, true, 2}, {false, false, 0}},
    {"IK,O,K", {true, false, 1}, {false, true, 0}, {false, false, 1}},
    {"IK,OK,1", {true, false, 1}, {false, true, 1}, {false, false, 0}},
    {"IK2,O,1", {true, false, 2}, {false, true, 0}, {false, false, 0}},
}};
/// PIMCOMP-NN's only format: H = K_h*K_w*C_in, W = C_out.
inline constexpr const Unfolding& kIm2col = kUnfoldings[4];

/// Legal layouts: I and O each appear exactly once, the kernel powers add up to 2, and H holds I but not O
/// (accumulation runs along H, so H must never mix output channels); P holds no channels.
bool isValidUnfolding(const Unfolding& u);

/// "I,O,K2", "i,o,k2", "(I, O, K^2)" and "im2col" (= "IK2,O,1") name a format; anything else is nullopt.
std::optional<Unfolding> parseUnfolding(std::string_view name);

/// A conv's sizes as Table IV uses them. Rectangular kernels: K^2 = K_h*K_w; the single K of an "OK" width is
/// one kernel row (K_w), a P of K counts kernel rows (K_h), and an "IK" height is a kernel row of pixels
/// (K_w) beside a P of K_h (IK,O,K) or a kernel column (K_h) beside a width of O K_w (IK,OK,1, one MVM per
/// output row and input column), so H*W*P = I*O*K_h*K_w in every format.
struct ConvGeometry {
  std::int64_t inChannels = 0, outChannels = 0, kernelH = 1, kernelW = 1;
  std::int64_t inH = 1, inW = 1, outH = 1, outW = 1;
};
ConvGeometry convGeometry(const NetworkNode& conv);

struct MatrixShape {
  std::int64_t h = 0, w = 0, p = 0;
};
/// (H, W, P) of `u` for `g`; H*W*P = I*O*K_h*K_w always.
MatrixShape unfoldedShape(const Unfolding& u, const ConvGeometry& g);

/// Table IV's three quantities for one layer and sample. F_out^2 = H_out*W_out, F_in^2 = H_in*W_in, and
/// F_in*F_out = H_out*W_in (one MVM per output row and input column); a load "F_in*F_out*K*I" reads K_h input
/// rows of W_in pixels for each of H_out output rows.
struct UnfoldingCost {
  std::int64_t computeCycles = 0;  // MVMs each array group performs per sample
  std::int64_t loadVolume = 0;     // elements read from global memory per sample
  std::int64_t extraMemory = 0;    // local-memory elements beyond the input vector
};
UnfoldingCost unfoldingCost(const Unfolding& u, const ConvGeometry& g);

/// tcad V-B: fewest compute cycles, then least load volume (HT) or least extra memory (LL), then Table IV
/// order; among the formats `admissible` accepts when given (`--unfolding auto` passes `scheduled`).
const Unfolding& greedyUnfolding(const ConvGeometry& g, PipelineMode mode,
                                 const std::function<bool(const Unfolding&)>& admissible = {});

/// One CONV or FC layer after partitioning (before replication).
///
/// Array groups: each of the P matrices is cut into ceil(H/rows) bands of `rows` matrix rows; a band spans
/// all ceil(W/cols) column arrays and is one AG, driven by one MVMUL. A replica holds every band of every one
/// of the P matrices, so agsPerReplica = P*ceil(H/rows), and all of them are summed into the replica's output
/// (the P matrices of (I,O,K^2) and (IK,O,K) hold different kernel positions of the same outputs). A format
/// whose W mixes O with K ((I,OK^2,1), (IK,OK,1)) leaves the shifted accumulation of its column blocks to the
/// vector unit (LL: ll_scatter.cpp's accumulators; HT: ht_reload.cpp's per-pixel sums). AGP: an AG
/// wider than a core (ceil(W/cols) > crossbars per core) is cut into agp column parts of at most a core each;
/// PIMCOMP-NN then treats every part as a replica of its own (replicas = origin replicas * agp).
struct LayerPartition {
  int node = -1;  // index in Network::nodes
  std::string name;
  NetworkOp op = NetworkOp::Conv;
  Unfolding unfolding = kIm2col;  // FC: im2col's (inputs, outputs, 1)
  MatrixShape matrix;
  std::int64_t windows = 1;         // input vectors per sample an AG multiplies: the format's compute cycles
  std::int64_t bandsPerMatrix = 1;  // ceil(H/rows)
  std::int64_t agsPerReplica = 1;   // P * bandsPerMatrix
  std::int64_t columnArrays = 1;    // ceil(W/cols): crossbars across a whole band
  std::int64_t agp = 1;             // column parts of a band (1 unless a band is wider than a core)
  std::int64_t crossbarsPerReplica = 0;  // agsPerReplica * columnArrays (all agp parts together)
  UnfoldingCost cost;  // Table IV quantities (FC: 1 cycle, `inputs` loaded, no extra memory)
  /// `auto` only: the greedy's choice over all five formats when the schedules do not run it on the layer
  /// (`scheduled`) and `unfolding` is the best of those it does; empty otherwise.
  std::string_view greedyPassedOver;
};

/// True when the columns of `u`'s matrices are the output channels alone (W = O): every AG then multiplies a
/// contiguous slice of one window's im2col vector and a replica's AGs sum into one output pixel, which is
/// what both schedules build. I,OK2,1 and IK,OK,1 spread a window's products over several output pixels (a
/// shifted, scatter accumulation in the vector unit).
bool multipliesWholeWindows(const Unfolding& u);

/// Whether the schedules run `u` on a layer of geometry `g`: the whole-window formats always, I,OK2,1 and
/// IK,OK,1 where a band fits one core (a block is added whole: ll_scatter.cpp, ht_reload.cpp).
bool scheduled(const Unfolding& u, const ConvGeometry& g, const Accelerator& acc);

/// InputError naming layer `l` of `network` (its node `node`) when the schedule of `mode` cannot run its
/// unfolding: a scatter band wider than a core.
void requireScheduled(const LayerPartition& l, PipelineMode mode, const NetworkNode& node,
                      const Accelerator& acc, std::string_view network);

/// Per-layer unfolding choice: "auto" (the greedy among the formats the schedules run on the layer),
/// "im2col", or a Table IV name; `perLayer` (node name -> choice) overrides `all` for single layers.
struct UnfoldingChoice {
  std::string all = "im2col";
  std::map<std::string, std::string, std::less<>> perLayer;
};

/// Every CONV and FC node, in node order. Grouped convolutions are placed as PIMCOMP-NN places them: the
/// block-diagonal weight is stored as a dense K_h*K_w*C_in x C_out matrix (zeros off the diagonal blocks).
/// Throws InputError for an unknown unfolding name or a per-layer override naming no CONV layer.
std::vector<LayerPartition> partitionNetwork(const Network& net, const Accelerator& acc,
                                             const UnfoldingChoice& choice, PipelineMode mode);

}  // namespace pim::crossbar
