// SPDX-License-Identifier: Apache-2.0
// Row activations of the model, per tensor. Every tensor sits alone in its bank (one open row), and its DRAM
// child's tile is read fills() times (outputs: written back fills() times and read back fills() - distinct
// times), each walk in ascending addresses. Per layout:
//  - a tensor within one row: 1 (the row stays open; pimopt-code applies no outer penalty then);
//  - row-aligned weight / output: each tile in its own slot of k = ceil(tile / row) rows, so every walk opens
//    its k rows (exact); an output's write-back reopens its slot unless k == 1;
//  - row-aligned input: the rows of the blocks each tile touches, per channel plane (planes start on a row),
//    summed over the distinct tile origins and repeated by the reuse factor fills / distinct (pimopt 5.5.3,
//    5.5.4: blocks straddled by a tile are its crossing cost);
//  - sequential: streaming (pimopt eq. 24) when the tile is one contiguous run and the loops above it visit
//    the tiles in address order: ceil(bytes / row) per traversal of the tensor; otherwise thrashing (eq. 26):
//    every walk opens the rows its runs cover.
#include "engine/convmap/row_activation.h"

#include "engine/common/int_math.h"
#include "engine/convmap/sequential_rows.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pim::convmap {

namespace {

/// The tensor's dimensions in its sequential layout order, outermost first (docs/convmap.md).
std::array<int, 4> layoutDims(int tensor) {
  switch (tensor) {
    case Input:
      return {N, C, Q, P};  // h runs along Q (and S), w along P (and R)
    case Weight:
      return {K, C, S, R};
    default:
      return {N, K, Q, P};
  }
}

/// Full and tile extents of the tensor along its layout dims (the input's h and w as windows).
struct LayoutShape {
  std::array<std::int64_t, 4> full, tile;
};
LayoutShape layoutShape(const ConvLayer& layer, const DimFactors& e, int tensor) {
  const auto dims = layoutDims(tensor);
  LayoutShape s;
  for (int i = 0; i < 4; ++i) {
    s.full[i] = layer.bound[dims[i]];
    s.tile[i] = e[dims[i]];
  }
  if (tensor == Input) {
    s.full[2] = layer.inputHeight();
    s.full[3] = layer.inputWidth();
    s.tile[2] = ConvLayer::windowExtent(e[Q], e[S], layer.strideH, layer.dilH);
    s.tile[3] = ConvLayer::windowExtent(e[P], e[R], layer.strideW, layer.dilW);
  }
  return s;
}

/// Walks of the DRAM child's tile: reads, plus an output's write-backs.
std::int64_t walks(std::int64_t f, std::int64_t d, int tensor) { return tensor == Output ? 2 * f - d : f; }

/// True when the loops above the child that move the tensor's tile visit the tiles in address order: along
/// the layout's dims, outer loops on outer dims (the input's h and w each moved by one loop at most).
bool visitsInAddressOrder(const ConvMapping& m, int child, int tensor) {
  const auto dims = layoutDims(tensor);
  auto rank = [&](int dim) {
    if (tensor == Input && dim == S) dim = Q;
    if (tensor == Input && dim == R) dim = P;
    for (int i = 0; i < 4; ++i)
      if (dims[i] == dim) return i;
    return -1;
  };
  int last = -1;
  std::array<int, 4> seen{};
  for (const auto& l : temporalLoops(m, child + 1)) {
    if (l.bound <= 1 || !relevant(l.dim, tensor)) continue;
    const int r = rank(l.dim);
    if (r < last || ++seen[r] > 1) return false;
    last = r;
  }
  return true;
}

/// Element strides of the tensor's sequential layout per conv dimension (0: irrelevant), and its layout dims
/// outer to inner with their element strides, the input's h and w as windows (docs/convmap.md).
std::array<std::int64_t, kDims> unitStrides(const ConvLayer& layer, int tensor) {
  std::array<std::int64_t, kDims> u{};
  const auto& b = layer.bound;
  if (tensor == Input) {
    const auto w = layer.inputWidth(), h = layer.inputHeight();
    u[N] = b[C] * h * w;
    u[C] = h * w;
    u[Q] = layer.strideH * w;
    u[S] = layer.dilH * w;
    u[P] = layer.strideW;
    u[R] = layer.dilW;
  } else if (tensor == Weight) {
    u[K] = b[C] * b[S] * b[R];
    u[C] = b[S] * b[R];
    u[S] = b[R];
    u[R] = 1;
  } else {
    u[N] = b[K] * b[Q] * b[P];
    u[K] = b[Q] * b[P];
    u[Q] = b[P];
    u[P] = 1;
  }
  return u;
}

/// The fills' loops (outer to inner) with their byte strides: the loops above the DRAM child, less those of
/// bound 1 and the irrelevant ones inside every relevant loop (they reuse the tile: no access at all). An
/// irrelevant loop outside repeats the traversal (stride 0). A loop's stride is the tile's extent in its
/// dimension times the bounds of the same dimension's loops inside it.
std::vector<RunLoop> fillLoops(const ConvLayer& layer, const ConvMapping& m, int child, int tensor) {
  auto loops = temporalLoops(m, child + 1);
  std::erase_if(loops, [](const NestLoop& l) { return l.bound <= 1; });
  while (!loops.empty() && !relevant(loops.back().dim, tensor)) loops.pop_back();
  const auto unit = unitStrides(layer, tensor);
  auto step = tileExtents(m, child);
  std::vector<RunLoop> out(loops.size());
  for (std::size_t i = loops.size(); i-- > 0;) {
    const auto& l = loops[i];
    out[i] = {l.bound, relevant(l.dim, tensor) ? step[l.dim] * unit[l.dim] * layer.elementBytes[tensor] : 0};
    step[l.dim] *= l.bound;
  }
  return out;
}

RunNest runNest(const ConvLayer& layer, const ConvMapping& m, int child, int tensor) {
  const auto b = layer.elementBytes[tensor];
  const auto s = layoutShape(layer, tileExtents(m, child), tensor);
  RunNest n;
  n.fillLoops = fillLoops(layer, m, child, tensor);
  int j = 3;  // the innermost layout dim the tile does not cover whole: runs are contiguous inside it
  while (j > 0 && s.tile[j] == s.full[j]) --j;
  n.runBytes = s.tile[j] * b;
  std::int64_t stride = b;
  for (int i = 3; i > j; --i) {
    n.runBytes *= s.full[i];
    stride *= s.full[i];
  }
  std::vector<RunLoop> inner;  // built inner to outer
  for (int i = j; i-- > 0;) {
    stride *= s.full[i + 1];
    if (s.tile[i] > 1) inner.push_back({s.tile[i], stride});
  }
  n.tileLoops.assign(inner.rbegin(), inner.rend());
  return n;
}

std::int64_t sequential(const ConvLayer& layer, const ConvMapping& m, int child, int tensor, std::int64_t row,
                        std::string& regime) {
  const auto nest = runNest(layer, m, child, tensor);
  regime = nest.tileLoops.empty() && visitsInAddressOrder(m, child, tensor) ? "streaming" : "thrashing";
  const double acts = tensor == Output ? readWriteActivations(nest, fills(m, child, tensor),
                                                              distinctTiles(m, child, tensor), row)
                                       : readActivations(nest, row);
  return static_cast<std::int64_t>(std::llround(acts));
}

/// Bytes a row-aligned input block occupies: rounded up to a divisor of the row (several blocks per row) or
/// to whole rows, so that no block straddles a row (docs/convmap.md).
std::int64_t blockSlotBytes(std::int64_t blockBytes, std::int64_t row) {
  if (blockBytes >= row) return ceilDiv(blockBytes, row) * row;
  std::int64_t slot = blockBytes;
  while (row % slot) ++slot;
  return slot;
}

/// A row-aligned input's plane (docs/convmap.md): blocks of blockH x blockW elements in row-major block
/// order, each in a slot of `slot` bytes (a divisor of the row, or whole rows), elements row-major inside a
/// block.
struct BlockGeometry {
  std::int64_t blockH, blockW, blocksW, slot, row, elementBytes;

  std::int64_t address(std::int64_t h, std::int64_t w) const {
    return (h / blockH * blocksW + w / blockW) * slot + ((h % blockH) * blockW + w % blockW) * elementBytes;
  }
  /// First and last DRAM row (within its plane) of a window of th x tw elements at (h0, w0): its top-left
  /// element has the lowest address, its bottom-right the highest.
  std::pair<std::int64_t, std::int64_t> rows(std::int64_t h0, std::int64_t w0, std::int64_t th,
                                             std::int64_t tw) const {
    return {address(h0, w0) / row, (address(h0 + th - 1, w0 + tw - 1) + elementBytes - 1) / row};
  }
  /// Distinct rows a window touches, and those of its part in its first block (what it costs beyond them is
  /// the straddling of blocks, pimopt 5.5.4).
  struct WindowRows {
    std::int64_t total, inFirstBlock;
  };
  /// The rows of the window of th x tw elements at (h0, w0), walked in ascending addresses. This is most of a
  /// row-aligned input's model (a call per tile origin), so positions advance by a constant step as
  /// (quotient, remainder) pairs instead of dividing per block or line.
  WindowRows windowRows(std::int64_t h0, std::int64_t w0, std::int64_t th, std::int64_t tw) const {
    const auto bh0 = h0 / blockH, bh1 = (h0 + th - 1) / blockH;
    const auto bw0 = w0 / blockW, bw1 = (w0 + tw - 1) / blockW;
    std::int64_t rows = 0, last = -1;
    if (slot < row) {  // a whole block sits in one row: a line of blocks, in ascending rows, spans a range
      const auto perRow = row / slot;  // slot divides the row (blockSlotBytes)
      Stepper first(bh0 * blocksW + bw0, perRow, blocksW), end(bh0 * blocksW + bw1, perRow, blocksW);
      for (auto i = bh0; i <= bh1; ++i, first.advance(), end.advance()) {
        rows += end.quotient - first.quotient + 1 - (first.quotient == last ? 1 : 0);
        last = end.quotient;
      }
      return {rows, 1};
    }
    std::int64_t inFirstBlock = 0;  // the first block walked is the window's first: (bh0, bw0)
    const auto lineBytes = blockW * elementBytes;
    for (auto i = bh0; i <= bh1; ++i)
      for (auto j = bw0; j <= bw1; ++j) {
        // The block's lines the window covers, each a run of its columns in the block.
        const auto hs = std::max(h0, i * blockH), he = std::min(h0 + th, (i + 1) * blockH) - 1;
        const auto ws = std::max(w0, j * blockW), we = std::min(w0 + tw, (j + 1) * blockW) - 1;
        // address(hs, ws), and the line's last byte, with the block (i, j) known
        const auto a =
            (i * blocksW + j) * slot + ((hs - i * blockH) * blockW + ws - j * blockW) * elementBytes;
        Stepper first(a, row, lineBytes), end(a + (we - ws + 1) * elementBytes - 1, row, lineBytes);
        for (auto h = hs; h <= he; ++h, first.advance(), end.advance()) {
          rows += end.quotient - first.quotient + 1 - (first.quotient == last ? 1 : 0);
          last = end.quotient;
        }
        if (i == bh0 && j == bw0) inFirstBlock = rows;
      }
    return {rows, inFirstBlock};
  }

 private:
  /// x / divisor as x grows by `step`: one division to start, none per step.
  struct Stepper {
    std::int64_t quotient, remainder, divisor, stepQuotient, stepRemainder;
    Stepper(std::int64_t x, std::int64_t d, std::int64_t step)
        : quotient(x / d), remainder(x % d), divisor(d), stepQuotient(step / d), stepRemainder(step % d) {}
    void advance() {
      quotient += stepQuotient;
      if ((remainder += stepRemainder) >= divisor) remainder -= divisor, ++quotient;
    }
  };
};

/// Consecutive fills of a one-plane input tile that start in the row the previous one ended in (a row hit,
/// not an activation). Fills that change the plane never hit: planes start on rows of their own. Per loop of
/// the fills' nest, every transition it drives is enumerated over the window loops outside it (the others
/// multiply the count).
std::int64_t rowAlignedInputHits(const ConvLayer& layer, const ConvMapping& m, int child,
                                 const BlockGeometry& g) {
  const auto e = tileExtents(m, child);
  if (e[N] * e[C] != 1) return 0;
  auto loops = temporalLoops(m, child + 1);
  std::erase_if(loops, [](const NestLoop& l) { return l.bound <= 1; });
  while (!loops.empty() && !relevant(loops.back().dim, Input)) loops.pop_back();
  // Each window loop's step in input rows (h) or columns (w).
  std::vector<std::int64_t> step(loops.size(), 0);
  auto extent = e;
  for (std::size_t i = loops.size(); i-- > 0;) {
    const int d = loops[i].dim;
    const std::int64_t scale = d == Q   ? layer.strideH
                               : d == S ? layer.dilH
                               : d == P ? layer.strideW
                                        : layer.dilW;
    if (d == P || d == Q || d == R || d == S) step[i] = extent[d] * scale;
    extent[d] *= loops[i].bound;
  }
  const auto th = ConvLayer::windowExtent(e[Q], e[S], layer.strideH, layer.dilH);
  const auto tw = ConvLayer::windowExtent(e[P], e[R], layer.strideW, layer.dilW);
  auto isH = [](int d) { return d == Q || d == S; };
  auto isWindow = [](int d) { return d == P || d == Q || d == R || d == S; };
  std::int64_t hits = 0;
  for (std::size_t j = 0; j < loops.size(); ++j) {
    bool planeMoves = false;
    std::int64_t others = 1;  // transitions repeated by non-window loops outside j
    std::vector<std::size_t> outer;
    for (std::size_t i = 0; i < loops.size(); ++i) {
      if (i >= j && (loops[i].dim == N || loops[i].dim == C)) planeMoves = true;
      if (i < j) (isWindow(loops[i].dim) ? outer.push_back(i) : void(others *= loops[i].bound));
    }
    if (planeMoves) continue;  // j is a window loop or an irrelevant one (K: the window repeats)
    // The previous tile has every loop inside j at its last index; the next has them at 0.
    std::int64_t innerH = 0, innerW = 0;
    for (std::size_t i = j + 1; i < loops.size(); ++i)
      (isH(loops[i].dim) ? innerH : innerW) += (loops[i].bound - 1) * step[i];
    std::vector<std::int64_t> idx(outer.size(), 0);
    std::int64_t count = 0;
    while (true) {
      std::int64_t h = 0, w = 0;
      for (std::size_t k = 0; k < outer.size(); ++k)
        (isH(loops[outer[k]].dim) ? h : w) += idx[k] * step[outer[k]];
      for (std::int64_t x = 0; x + 1 < loops[j].bound; ++x) {
        const auto dh = isH(loops[j].dim) ? step[j] : 0, dw = isH(loops[j].dim) ? 0 : step[j];  // K: step 0
        const auto prev = g.rows(h + x * dh + innerH, w + x * dw + innerW, th, tw);
        const auto next = g.rows(h + (x + 1) * dh, w + (x + 1) * dw, th, tw);
        count += prev.second == next.first;
      }
      std::size_t k = 0;
      while (k < outer.size() && ++idx[k] == loops[outer[k]].bound) idx[k++] = 0;
      if (k == outer.size()) break;
    }
    hits += count * others;
  }
  return hits;
}

std::int64_t rowAlignedInput(const ConvLayer& layer, const ConvMapping& m, int child, std::int64_t row,
                             std::int64_t& crossing) {
  const auto e = tileExtents(m, child);
  const auto b = layer.elementBytes[Input];
  const auto th = ConvLayer::windowExtent(e[Q], e[S], layer.strideH, layer.dilH);
  const auto tw = ConvLayer::windowExtent(e[P], e[R], layer.strideW, layer.dilW);
  const auto blocksW = ceilDiv(layer.inputWidth(), m.blockW);
  const auto slot = blockSlotBytes(m.blockH * m.blockW * b, row);
  // Tile origins along h (w): q tiles x s tiles, each a window start; a tile straddles blocks when its
  // window crosses a block boundary. Each distinct origin is listed once, with how many tiles start there:
  // a strided layer's output tiles and kernel tiles often share origins (ResNet-18's first layer at unit
  // extents: 229 of 784 per direction), and a window's rows depend on its origin alone.
  auto origins = [](std::int64_t outTiles, std::int64_t outStep, std::int64_t kTiles, std::int64_t kStep) {
    std::vector<std::int64_t> all;
    for (std::int64_t i = 0; i < outTiles; ++i)
      for (std::int64_t k = 0; k < kTiles; ++k) all.push_back(i * outStep + k * kStep);
    std::sort(all.begin(), all.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> counted;  // (origin, tiles)
    for (auto o : all)
      if (counted.empty() || counted.back().first != o)
        counted.push_back({o, 1});
      else
        ++counted.back().second;
    return counted;
  };
  const auto hs =
      origins(layer.bound[Q] / e[Q], e[Q] * layer.strideH, layer.bound[S] / e[S], e[S] * layer.dilH);
  const auto ws =
      origins(layer.bound[P] / e[P], e[P] * layer.strideW, layer.bound[R] / e[R], e[R] * layer.dilW);
  const BlockGeometry geometry{m.blockH, m.blockW, blocksW, slot, row, b};
  std::int64_t rows = 0, straddles = 0;
  for (const auto& [h0, hTiles] : hs)
    for (const auto& [w0, wTiles] : ws) {
      const auto r = geometry.windowRows(h0, w0, th, tw);
      rows += hTiles * wTiles * r.total;
      straddles += hTiles * wTiles * (r.total - r.inFirstBlock);
    }
  const auto planes = layer.bound[N] * layer.bound[C];  // every plane tile of every (n, c) tile position
  const auto reuse = fills(m, child, Input) / distinctTiles(m, child, Input);
  crossing = straddles * planes * reuse;
  return rows * planes * reuse - rowAlignedInputHits(layer, m, child, geometry);
}

}  // namespace

RowActivations rowActivations(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m) {
  RowActivations r;
  const auto row = h.dram().rowBytes;
  for (int t = 0; t < kTensors; ++t) {
    const int child = dramChild(m, t);
    if (m.layout[t] == Layout::Sequential && layer.bytes(t) <= row) {
      r.count[t] = 1;
      r.regime[t] = "one row";
    } else if (m.layout[t] == Layout::RowAligned && t == Input) {
      r.count[t] = rowAlignedInput(layer, m, child, row, r.crossing[t]);
      r.regime[t] = "row-aligned blocks";
    } else if (m.layout[t] == Layout::RowAligned) {
      const auto f = fills(m, child, t), d = distinctTiles(m, child, t);
      const auto k = ceilDiv(tileElements(layer, tileExtents(m, child), t) * layer.elementBytes[t], row);
      r.count[t] = (t == Output && k == 1) ? f : k * walks(f, d, t);
      r.regime[t] = "row-aligned tiles";
    } else {
      r.count[t] = sequential(layer, m, child, t, row, r.regime[t]);
    }
  }
  return r;
}

std::int64_t crossingTiles(std::int64_t n, std::int64_t step, std::int64_t extent, std::int64_t block) {
  if (n <= 0) return 0;
  if (extent > block) return n;
  const auto g = std::gcd(step, block);
  const auto period = block / g;
  const auto safe = ceilDiv(block - extent + 1, g);  // offsets 0, g, 2g, ... that keep the tile inside
  std::int64_t count = (n / period) * (period - safe);
  for (std::int64_t k = 0; k < n % period; ++k)
    if ((k * step) % block + extent > block) ++count;
  return count;
}

}  // namespace pim::convmap
