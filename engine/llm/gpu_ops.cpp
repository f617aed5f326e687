// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/gpu_ops.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "engine/common/checked.h"
#include "engine/common/int_math.h"

namespace pim::llm {

namespace {

// Tile search constants, AttAcc simulator (src/devices.py, _get_optimal_tile / _get_traffic).
constexpr std::array<std::int64_t, 11> kTileRange = {8, 16, 32, 64, 128, 192, 256, 320, 384, 448, 512};
constexpr std::int64_t kL1TileK = 32;   // fixed k depth of an L1 tile
constexpr double kL2TileKDivisor = 64;  // "experimentally found" L2 tile k = k / 64
constexpr std::int64_t kRegTile = 16;   // register tile (16 x 16) for the L1 -> register traffic

// Fits to measured A100 kernels, AttAcc simulator (src/devices.py, _mem_time): us per off-chip byte at the
// A100-40GB's 1555 GB/s, scaled by the modelled bandwidth, plus a launch constant in us.
constexpr double kFitBandwidth = 1555e9;
constexpr double kActUsPerByte = 0.000000447, kActUs = 8.29;
constexpr double kNormUsPerByte = 0.0000016, kNormUs = 6.87;

// NVLink all-reduce step, AttAcc simulator (src/devices.py, get_nvlink_time): a fit to A100 measurements,
// 6060 ns + 0.009 ns per byte at 600 GB/s, never faster than the one-direction bandwidth.
constexpr double kNvlinkNs = 6060, kNvlinkNsPerByte = 0.009, kNvlinkFitBandwidth = 600e9;

struct GemmShape {  // one GPU operation's GEMM dimensions
  std::int64_t m, n, k, numOp;
  int dbyte;
};

bool isGemm(GpuOpKind kind) { return kind == GpuOpKind::Fc || kind == GpuOpKind::Matmul; }

void validate(const GpuOp& op) {
  if (op.m < 1 || op.n < 1 || op.k < 1 || op.numOp < 1)
    throw std::invalid_argument("GPU op: m, n, k and numOp must be at least 1 (m=" + std::to_string(op.m) +
                                " n=" + std::to_string(op.n) + " k=" + std::to_string(op.k) +
                                " numOp=" + std::to_string(op.numOp) + ")");
  if (op.dbyte != 1 && op.dbyte != 2)
    throw std::invalid_argument("GPU op: dbyte must be 1 (FP8) or 2 (FP16), got " + std::to_string(op.dbyte));
  // Bound every count computed below so that it is exact in 64 bits, as the source's Python integers are:
  // a GEMM's traffic at any level <= 3*dbyte*m*n*k*numOp (its FLOPs 2*m*n*k*numOp), an element-wise op's
  // FLOPs <= 9*m*n*numOp (its bytes <= 3*dbyte*m*n*numOp; k unused).
  const std::int64_t mnOps = checkedMul<std::int64_t>(checkedMul<std::int64_t>(op.m, op.n, "GPU op m*n"),
                                                      op.numOp, "GPU op m*n*numOp");
  if (isGemm(op.kind))
    checkedMul<std::int64_t>(checkedMul<std::int64_t>(mnOps, op.k, "GPU op m*n*k*numOp"), 3 * op.dbyte,
                             "GPU op traffic 3*dbyte*m*n*k*numOp");
  else
    checkedMul<std::int64_t>(mnOps, 9, "GPU op FLOPs 9*m*n*numOp");
}

void validate(const GpuSystem& s) {
  const sim::GpuParams& g = s.gpu;
  if (s.gpus < 1 || g.sms < 1) throw std::invalid_argument("GPU system: gpus and sms must be at least 1");
  if (!(g.peakFlops > 0 && g.flopEff > 0 && g.peakBw > 0 && g.bwEff > 0 && s.l1BytesPerSm > 0 &&
        s.l2Bytes > 0 && s.l2Bandwidth > 0 && s.linkBw > 0))
    throw std::invalid_argument("GPU system: rates, efficiencies and cache sizes must be positive");
}

GemmShape shapeOf(const GpuOp& op) { return {op.m, op.n, op.k, op.numOp, op.dbyte}; }

/// Bytes moved into a level whose tiles are tm x tn: A re-read per column of tiles, B per row of tiles, C
/// once; all numOp products. AttAcc simulator (src/devices.py, _get_traffic_for_tile).
std::int64_t tileTraffic(std::int64_t tm, std::int64_t tn, const GemmShape& s) {
  const std::int64_t elems = ceilDiv(s.n, tn) * s.m * s.k + ceilDiv(s.m, tm) * s.n * s.k + s.m * s.n;
  return elems * s.dbyte * s.numOp;
}

/// SM utilisation of `blocks` thread blocks: the last wave over `sms` SMs is partly idle.
double smUtil(std::int64_t blocks, int sms) {
  return static_cast<double>(blocks) / static_cast<double>(ceilDiv(blocks, sms) * sms);
}

/// Thread blocks of an L1 tile: one per output tile for Fc, one per product for Matmul (source's rule).
std::int64_t threadBlocks(GpuOpKind kind, const GemmShape& s, std::int64_t l1M, std::int64_t l1N) {
  return kind == GpuOpKind::Fc ? ceilDiv(s.m, l1M) * ceilDiv(s.n, l1N) * s.numOp : s.numOp;
}

/// L1 tile: the (tm, tn) of kTileRange, clamped to the matrix, fitting one SM's L1 with the kL1TileK-deep
/// A and B slices, that minimises L2 traffic / u^2 (penalising idle SMs); first strict minimum wins.
std::pair<std::int64_t, std::int64_t> l1Tile(GpuOpKind kind, const GemmShape& s, const GpuSystem& sys) {
  double minCost = std::numeric_limits<double>::infinity();
  std::pair<std::int64_t, std::int64_t> best{0, 0};
  for (std::int64_t tmRaw : kTileRange) {
    for (std::int64_t tnRaw : kTileRange) {
      const std::int64_t tm = std::min(tmRaw, s.m), tn = std::min(tnRaw, s.n);
      const std::int64_t capacity = (tm + tn) * kL1TileK * s.dbyte + tm * tn * s.dbyte;
      if (static_cast<double>(capacity) > sys.l1BytesPerSm) continue;
      const double inv = 1 / smUtil(threadBlocks(kind, s, tm, tn), sys.gpu.sms);
      const double cost = static_cast<double>(tileTraffic(tm, tn, s)) * (inv * inv);
      if (cost < minCost) {
        minCost = cost;
        best = {tm, tn};
      }
    }
  }
  if (best.first == 0) throw std::invalid_argument("GPU system: no L1 tile fits l1BytesPerSm");
  return best;
}

/// Off-chip traffic of an L2 tile as the L2 search scores it (no numOp factor: the source's formula).
std::int64_t l2Access(std::int64_t tm, std::int64_t tn, const GemmShape& s) {
  return ceilDiv(s.m, tm) * s.n * s.k * s.dbyte + ceilDiv(s.n, tn) * s.m * s.k * s.dbyte +
         s.m * s.n * s.dbyte;
}

/// L2 bytes an L2 tile holds, in the source's floating-point order (l2K = k / 64 is fractional).
bool l2Fits(std::int64_t tm, std::int64_t tn, double l2K, const GemmShape& s, const GpuSystem& sys) {
  const double capacity =
      static_cast<double>(tm + tn) * l2K * s.dbyte + static_cast<double>(tm * tn * s.dbyte);
  return !(capacity > sys.l2Bytes);
}

/// L2 tile candidates of one dimension, in the source's order: tile*1, ..., tile*floor(dim/tile), dim.
struct Candidates {
  std::int64_t tile, dim;
  std::int64_t count() const { return dim / tile + 1; }
  std::int64_t at(std::int64_t i) const { return i + 1 < count() ? tile * (i + 1) : dim; }
};

/// First index in [lo, hi) where the monotone (false..true) `pred` holds, or hi.
template <class Pred>
std::int64_t firstTrue(std::int64_t lo, std::int64_t hi, Pred pred) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (pred(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// L2 tile: over multiples of the L1 tile (then the whole dimension), the first (tm, tn) in (tm outer, tn
/// inner) order with the strictly smallest off-chip access among those fitting L2; the L1 tile itself is
/// always allowed. Equal to the source's double loop but O(rows * log(cols)): capacity grows with tm and tn
/// (so the fitting tiles of a row are a prefix, and a row with none ends the search) and access never grows
/// with tn (so a row's first minimum is found by bisection).
std::pair<std::int64_t, std::int64_t> l2Tile(const GemmShape& s, std::int64_t l1M, std::int64_t l1N,
                                             const GpuSystem& sys) {
  const double l2K = static_cast<double>(s.k) / kL2TileKDivisor;
  const Candidates rows{l1M, s.m}, cols{l1N, s.n};
  std::int64_t minAccess = std::numeric_limits<std::int64_t>::max();
  // The L1 tile (row 0, column 0) is the answer when even it overflows L2: nothing else is allowed then.
  std::pair<std::int64_t, std::int64_t> best{l1M, l1N};
  for (std::int64_t i = 0; i < rows.count(); ++i) {
    const std::int64_t tm = rows.at(i);
    const std::int64_t fitting =
        firstTrue(0, cols.count(), [&](std::int64_t j) { return !l2Fits(tm, cols.at(j), l2K, s, sys); });
    if (fitting == 0) break;
    const std::int64_t rowMin = l2Access(tm, cols.at(fitting - 1), s);
    const std::int64_t j =
        firstTrue(0, fitting - 1, [&](std::int64_t c) { return l2Access(tm, cols.at(c), s) <= rowMin; });
    if (rowMin < minAccess) {
      minAccess = rowMin;
      best = {tm, cols.at(j)};
    }
  }
  return best;
}

GpuTile searchTile(GpuOpKind kind, const GemmShape& s, const GpuSystem& sys) {
  const auto [l1M, l1N] = l1Tile(kind, s, sys);
  const auto [l2M, l2N] = l2Tile(s, l1M, l1N, sys);
  return {l1M, l1N, kL1TileK, l2M, l2N, static_cast<double>(s.k) / kL2TileKDivisor};
}

void validateGemm(const GpuOp& op, const GpuSystem& sys) {
  validate(op);
  validate(sys);
  if (!isGemm(op.kind)) throw std::invalid_argument("GPU tile search: only Fc and Matmul ops have tiles");
}

/// The memo: the same shapes recur every token and a prefill FC's search is long. Keyed by everything the
/// search reads (the source keys by shape only, its cache being per device; the kind is in the key here, so
/// an Fc and a Matmul of one shape never share a tile whichever is asked first).
using TileKey =
    std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int, int, double, double>;
TileKey tileKeyOf(const GpuOp& op, const GpuSystem& sys) {
  return std::make_tuple(static_cast<int>(op.kind), op.m, op.n, op.k, op.numOp, op.dbyte, sys.gpu.sms,
                         sys.l1BytesPerSm, sys.l2Bytes);
}
constexpr std::size_t kMemoLimit = 1 << 16;  // dropped whole beyond this: entries are cheap to recompute

std::mutex& memoMutex() {
  static std::mutex mu;
  return mu;
}
std::map<TileKey, GpuTile>& memo() {
  static std::map<TileKey, GpuTile> table;
  return table;
}

// ---- Time and energy --------------------------------------------------------------------------------------

/// FLOPs / (peak * eff * u * (2 / dbyte)), in the source's order (src/devices.py, _compute_time).
double computeTime(std::int64_t flops, double util, int dbyte, const GpuSystem& sys) {
  double rate = sys.gpu.peakFlops * sys.gpu.flopEff;
  rate = rate * util;
  rate *= 2 / dbyte;  // FP8 runs at twice the FP16 rate
  return static_cast<double>(flops) / rate;
}

/// Off-chip bytes / (bw * eff * u), or L2 bytes / L2 bandwidth if slower (src/devices.py, _mem_time).
double memoryTime(std::int64_t offchip, std::int64_t l2, double util, const GpuSystem& sys) {
  double bw = sys.gpu.peakBw * sys.gpu.bwEff;
  bw = bw * util;
  return std::max(static_cast<double>(offchip) / bw, static_cast<double>(l2) / sys.l2Bandwidth);
}

/// Per-level traffic and ALU energy over all GPUs (src/devices.py, _get_energy).
GpuEnergy levelEnergy(const GpuOpCost& c, const GpuSystem& sys) {
  const sim::GpuParams& g = sys.gpu;
  GpuEnergy e;
  e.offchip = c.offchipBytes * g.pJPerOffchipByte * sys.gpus;
  e.l2 = c.l2Bytes * g.pJPerL2Byte * sys.gpus;
  e.l1 = c.l1Bytes * g.pJPerL1Byte * sys.gpus;
  e.reg = c.regBytes * g.pJPerRegByte * sys.gpus;
  e.alu = c.flops / 2 * g.pJPerMac * sys.gpus;
  return e;
}

void finish(GpuOpCost& c, const GpuSystem& sys) {
  c.computeBound = c.computeTime_s > c.memoryTime_s;  // a tie is memory-bound, as the source
  c.time_s = std::max(c.computeTime_s, c.memoryTime_s);
  c.energy_pJ = levelEnergy(c, sys);
}

GpuOpCost gemmCost(const GpuOp& op, const GpuSystem& sys) {
  const GemmShape s = shapeOf(op);
  GpuOpCost c;
  c.tile = gpuOptimalTile(op, sys);
  const std::int64_t offchip = tileTraffic(c.tile.l2M, c.tile.l2N, s);  // DRAM -> L2 with L2 tiles
  const std::int64_t l2 = tileTraffic(c.tile.l1M, c.tile.l1N, s);       // L2 -> L1 with L1 tiles
  const std::int64_t flops = gpuOpFlops(op);
  c.flops = static_cast<double>(flops);
  c.offchipBytes = static_cast<double>(offchip);
  c.l2Bytes = static_cast<double>(l2);
  c.l1Bytes = static_cast<double>(tileTraffic(kRegTile, kRegTile, s));
  c.regBytes = static_cast<double>(3 * s.m * s.n * s.k);  // source: [m*n*k]*3, no dbyte nor numOp
  const double util = smUtil(threadBlocks(op.kind, s, c.tile.l1M, c.tile.l1N), sys.gpu.sms);
  c.computeTime_s = computeTime(flops, util, s.dbyte, sys);
  c.memoryTime_s = memoryTime(offchip, l2, util, sys);
  finish(c, sys);
  return c;
}

/// Softmax, Act, Norm: every level moves the tensors once; one thread block per op instance.
GpuOpCost elementwiseCost(const GpuOp& op, const GpuSystem& sys) {
  const std::int64_t bytes = gpuOpSizes(op).total();
  const std::int64_t flops = gpuOpFlops(op);
  GpuOpCost c;
  c.flops = static_cast<double>(flops);
  c.offchipBytes = c.l2Bytes = c.l1Bytes = c.regBytes = static_cast<double>(bytes);
  const double util = smUtil(op.numOp, sys.gpu.sms);
  c.computeTime_s = computeTime(flops, util, op.dbyte, sys);
  if (op.kind == GpuOpKind::Softmax) {
    c.memoryTime_s = memoryTime(bytes, bytes, util, sys);
  } else {
    const bool act = op.kind == GpuOpKind::Act;
    const double perByte = act ? kActUsPerByte : kNormUsPerByte, fixed = act ? kActUs : kNormUs;
    c.memoryTime_s =
        (perByte * (kFitBandwidth / sys.gpu.peakBw) * static_cast<double>(bytes) + fixed) / 1000 / 1000;
  }
  finish(c, sys);
  return c;
}

/// Ring all-reduce of each GPU's partial output: gpus - 1 NVLink steps of 1/gpus of it (src/devices.py,
/// _io_time_energy). The source returns 1 s for an empty step; nothing is sent there, so 0 here.
GpuOpCost allReduceCost(std::int64_t traffic, const GpuSystem& sys) {
  GpuOpCost c;
  c.commBytes = static_cast<double>(traffic);
  const double step = static_cast<double>(traffic) / sys.gpus;
  double stepTime = 0;
  if (step > 0) {
    const double ns = kNvlinkNs + kNvlinkNsPerByte * step * (kNvlinkFitBandwidth / sys.linkBw);
    stepTime = std::max(ns / 1000 / 1000 / 1000, step / (sys.linkBw / 2));
  }
  c.time_s = c.memoryTime_s = stepTime * (sys.gpus - 1);
  // Every GPU's copy crosses NVLink (the source's num_xpu * traffic * comm). With one GPU nothing crosses:
  // the source charges it anyway; we do not.
  const std::int64_t crossing = sys.gpus > 1 ? traffic : 0;
  c.energy_pJ.comm = static_cast<double>(checkedMul<std::int64_t>(sys.gpus, crossing, "all-reduce bytes")) *
                     sys.commPjPerByte;
  return c;
}

/// One-direction transfer over the link (half its bandwidth): AttAcc's X2G (src/devices.py).
GpuOpCost transferCost(std::int64_t bytes, const GpuSystem& sys) {
  GpuOpCost c;
  c.commBytes = static_cast<double>(bytes);
  c.time_s = c.memoryTime_s = static_cast<double>(bytes) / (sys.linkBw / 2);
  return c;
}

}  // namespace

std::int64_t gpuOpFlops(const GpuOp& op) {
  validate(op);
  const std::int64_t elems = op.m * op.n * op.numOp;
  switch (op.kind) {
    case GpuOpKind::Fc:
    case GpuOpKind::Matmul:
      return 2 * elems * op.k;
    case GpuOpKind::Softmax:
    case GpuOpKind::Norm:
      return 5 * elems;
    case GpuOpKind::Act:
      // relu 1, gelu 8, and a gated unit gelu's 8 plus the gating multiply (src/model.py, get_flops)
      return (op.act == ActKind::Relu ? 1 : op.act == ActKind::Glu ? 9 : 8) * elems;
    case GpuOpKind::AllReduce:
    case GpuOpKind::Link:
      return 0;
  }
  throw std::invalid_argument("GPU op: unknown kind");
}

GpuOpSizes gpuOpSizes(const GpuOp& op) {
  validate(op);
  const std::int64_t mn = op.numOp * op.m * op.n * op.dbyte;
  switch (op.kind) {
    case GpuOpKind::Fc:
    case GpuOpKind::Matmul:
      return {op.numOp * op.m * op.k * op.dbyte, op.numOp * op.n * op.k * op.dbyte, mn};
    case GpuOpKind::Norm:
      return {mn, mn, mn};  // input, residual, output (src/model.py, get_size)
    case GpuOpKind::Act:
      return {mn, op.act == ActKind::Glu ? mn : 0, mn};  // GLU: gate input too
    case GpuOpKind::Softmax:
    case GpuOpKind::AllReduce:
    case GpuOpKind::Link:
      return {mn, 0, mn};
  }
  throw std::invalid_argument("GPU op: unknown kind");
}

GpuTile gpuOptimalTile(const GpuOp& op, const GpuSystem& sys) {
  validateGemm(op, sys);
  const TileKey key = tileKeyOf(op, sys);
  {
    std::lock_guard<std::mutex> lock(memoMutex());
    auto it = memo().find(key);
    if (it != memo().end()) return it->second;
  }
  // Searched unlocked so that other shapes are not held up; a racing thread computes the same tile.
  const GpuTile tile = searchTile(op.kind, shapeOf(op), sys);
  std::lock_guard<std::mutex> lock(memoMutex());
  if (memo().size() >= kMemoLimit) memo().clear();
  memo().emplace(key, tile);
  return tile;
}

GpuOpCost gpuOpCost(const GpuOp& op, const GpuSystem& sys) {
  validate(op);
  validate(sys);
  switch (op.kind) {
    case GpuOpKind::Fc:
    case GpuOpKind::Matmul:
      return gemmCost(op, sys);
    case GpuOpKind::Softmax:
    case GpuOpKind::Act:
    case GpuOpKind::Norm:
      return elementwiseCost(op, sys);
    case GpuOpKind::AllReduce:
      return allReduceCost(op.m * op.n * op.numOp * op.dbyte, sys);
    case GpuOpKind::Link: {
      // The GPU side's X2G: every GPU sends its share (src/devices.py, num_xpu * traffic * comm).
      const std::int64_t bytes = op.m * op.n * op.numOp * op.dbyte;
      GpuOpCost c = transferCost(bytes, sys);
      c.energy_pJ.comm =
          static_cast<double>(checkedMul<std::int64_t>(sys.gpus, bytes, "link bytes")) * sys.commPjPerByte;
      return c;
    }
  }
  throw std::invalid_argument("GPU op: unknown kind");
}

GpuOpCost linkCost(std::int64_t bytes, const GpuSystem& sys, int pimDevices) {
  validate(sys);
  if (bytes < 0 || pimDevices < 1)
    throw std::invalid_argument("link: bytes must be >= 0 and pimDevices >= 1");
  GpuOpCost c = transferCost(bytes, sys);
  // The PIM side's X2G: traffic * comm * devices (src/devices.py, PIM._io_time_energy).
  c.energy_pJ.comm = static_cast<double>(bytes) * sys.commPjPerByte * pimDevices;
  return c;
}

namespace detail {

GpuTile gpuTileSearchLiteral(const GpuOp& op, const GpuSystem& sys) {
  validateGemm(op, sys);
  const GemmShape s = shapeOf(op);
  const auto [l1M, l1N] = l1Tile(op.kind, s, sys);
  const double l2K = static_cast<double>(s.k) / kL2TileKDivisor;
  const Candidates rows{l1M, s.m}, cols{l1N, s.n};
  std::int64_t minAccess = std::numeric_limits<std::int64_t>::max();
  std::pair<std::int64_t, std::int64_t> best{0, 0};
  for (std::int64_t i = 0; i < rows.count(); ++i) {
    for (std::int64_t j = 0; j < cols.count(); ++j) {
      const std::int64_t tm = rows.at(i), tn = cols.at(j);
      if (!l2Fits(tm, tn, l2K, s, sys) && (tm != l1M || tn != l1N)) continue;
      const std::int64_t access = l2Access(tm, tn, s);
      if (access < minAccess) {
        minAccess = access;
        best = {tm, tn};
      }
    }
  }
  return {l1M, l1N, kL1TileK, best.first, best.second, l2K};
}

std::size_t gpuTileMemoSize() {
  std::lock_guard<std::mutex> lock(memoMutex());
  return memo().size();
}

}  // namespace detail

}  // namespace pim::llm
