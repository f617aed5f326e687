// SPDX-License-Identifier: Apache-2.0
// The conv walk of docs/convmap.md, address run by address run, with an exact skip of periodic iterations.
//
// Why the skip is exact. Fix a loop L's outer indices; "body k" = the iterations inside L with L's index k. A
// tensor L moves has in body k the tile origins of body k-1 shifted one step along L's dimension; others keep
// theirs. (1) Fetch decisions (which tensor is fetched where, whether an output fill reads) are equal in all
// bodies k >= 1: a fetch compares an origin with the previous iteration's and both shift together (only body
// 0's first iteration looks outside L); an output tile was fetched before iff an earlier iteration has the
// same indices in every loop moving the output, which does not depend on k if L moves the output and holds
// for every body k >= 1 if it does not. (2) After P bodies (the period, bodyShift) every moved tensor's
// addresses are an exact translate by D_t bytes, a multiple of the row size: sequential layouts are affine,
// the row-aligned input's blocks translate by whole blocks, row-aligned tiles by whole slots. (3) Tensors
// sharing a bank occupy disjoint rows, so only rows of one tensor compare equal, and a translation by whole
// rows keeps those comparisons. Hence bodies k and k+P, both >= 2, issue the same runs shifted by D_t from
// bank states shifted by D_t (a touched bank's last access before body k lies in body k-1 >= 1, the one
// before body k+P is its translate): equal activations, hits, bytes and fills; bodies >= 2 repeat with period
// P. The walker runs bodies 0, 1 and one period literally, then adds n periods at once and moves the state by
// n periods (open rows of the banks the period touched, resident origins, fetched output tiles), within one
// time slice so that slice gets every skipped count; the rest runs literally again.
#include "sim/row_trace.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace pim::sim {

namespace {

using Coords = std::array<int64_t, kTraceDims>;
constexpr const char* kDimName[kTraceDims] = {"R", "S", "P", "Q", "C", "K", "N"};
constexpr const char* kTensorName[kTraceTensors] = {"input", "weight", "output"};
// relevant(dim, tensor), docs/convmap.md "Workload".
constexpr bool kRelevant[kTraceDims][kTraceTensors] = {
    {true, true, false}, {true, true, false}, {true, false, true}, {true, false, true},
    {true, true, false}, {false, true, true}, {true, false, true}};
constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;

int64_t mul(int64_t a, int64_t b) {
  if (a != 0 && b > kMax / a) throw std::invalid_argument("traceConv: sizes overflow 64-bit arithmetic");
  return a * b;
}
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUp(int64_t a, int64_t b) { return mul(ceilDiv(a, b), b); }
[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("traceConv: " + what); }

void validateTensor(const ConvTraceSpec& s, int t) {
  if (s.elementBytes[t] < 1) bad(std::string(kTensorName[t]) + " element bytes must be >= 1");
  if (s.bank[t] < 0 || s.bank[t] >= s.numBanks)
    bad(std::string(kTensorName[t]) + " bank " + std::to_string(s.bank[t]) + " out of range [0, " +
        std::to_string(s.numBanks) + ")");
  if (s.childLevel[t] < 0) bad(std::string(kTensorName[t]) + " DRAM child level must be >= 0");
  for (int d = 0; d < kTraceDims; ++d) {
    if (!kRelevant[d][t]) continue;
    const int64_t ext = s.tileExtent[t][d];
    const std::string what = std::string(kTensorName[t]) + " tile extent " + std::to_string(ext) + " of " +
                             kDimName[d] + " (bound " + std::to_string(s.bounds[d]) + ")";
    if (ext < 1 || s.bounds[d] % ext != 0) bad(what + " must be >= 1 and divide the bound");
    int64_t above = 1, inside = 1;
    for (const TraceLoop& l : s.loops)
      if (l.dim == d) (l.level > s.childLevel[t] ? above : inside) *= l.bound;
    if (mul(above, ext) != s.bounds[d])
      bad(what + " times the loops above level " + std::to_string(s.childLevel[t]) + " (" +
          std::to_string(above) + ") must equal the bound");
    if (ext % inside != 0)
      bad(what + " must be a multiple of its loops at levels 1.." + std::to_string(s.childLevel[t]) + " (" +
          std::to_string(inside) + ")");
  }
}

void validate(const ConvTraceSpec& s) {
  for (int d = 0; d < kTraceDims; ++d)
    if (s.bounds[d] < 1) bad(std::string("bound of ") + kDimName[d] + " must be >= 1");
  if (s.strideW < 1 || s.strideH < 1 || s.dilW < 1 || s.dilH < 1) bad("strides and dilations must be >= 1");
  if (s.rowBytes < 1 || s.numBanks < 1 || s.slices < 1) bad("row bytes, banks and slices must be >= 1");
  if (s.layout[kTraceInput] == TraceLayout::RowAligned && (s.blockH < 1 || s.blockW < 1))
    bad("row-aligned input blocks must be >= 1 x 1");
  int prevLevel = std::numeric_limits<int>::max();
  int64_t leaves = 1;
  for (const TraceLoop& l : s.loops) {
    if (l.dim < 0 || l.dim >= kTraceDims) bad("loop dimension " + std::to_string(l.dim) + " out of range");
    if (l.bound < 1 || l.level < 1)
      bad(std::string("loop over ") + kDimName[l.dim] + " needs bound >= 1 and level >= 1");
    if (l.level > prevLevel) bad("loops must be listed outermost first (levels non-increasing)");
    prevLevel = l.level;
    leaves = mul(leaves, l.bound);
  }
  mul(leaves, s.slices);
  for (int t = 0; t < kTraceTensors; ++t) validateTensor(s, t);
}

// A tensor's DRAM geometry: its address-order box (input N,C,H,W; weight K,C,S,R; output N,K,Q,P), the tile's
// extent in it, and the layout's constants.
struct TensorPlan {
  TraceLayout layout = TraceLayout::Sequential;
  int64_t eb = 1;
  int bank = 0;
  int64_t base = 0;  // first byte in the bank
  int64_t bytes = 0;
  std::array<int, kTraceDims> pos{};  // box axis of each relevant dimension, -1 otherwise
  std::array<int64_t, kTraceDims> coef{1, 1, 1, 1, 1, 1, 1};  // box coordinate = sum of coef * coordinate
  std::array<int64_t, 4> shape{}, extent{}, stride{};  // stride: bytes per unit of a box axis (sequential)
  int runAxis = 3;                                     // sequential: axes runAxis..3 form one contiguous run
  int64_t runBytes = 0;                                // bytes of that run
  std::array<int64_t, 4> gridStride{};                 // tile-grid index per tile along each axis
  int64_t tileBytes = 0, slotBytes = 0;  // row-aligned weight/output: tile and its slot of whole rows
  int64_t blockBytes = 0, strideC = 0, numBlkW = 0;  // row-aligned input
};

TensorPlan planTensor(const ConvTraceSpec& s, int t) {
  const auto& b = s.bounds;
  const auto& e = s.tileExtent[t];
  TensorPlan p;
  p.layout = s.layout[t];
  p.eb = s.elementBytes[t];
  p.bank = s.bank[t];
  if (t == kTraceInput) {
    p.pos = {3, 2, 3, 2, 1, -1, 0};
    p.coef = {s.dilW, s.dilH, s.strideW, s.strideH, 1, 1, 1};  // w = p*stride + r*dil, h likewise
    const auto span = [](int64_t st, int64_t n, int64_t dil, int64_t k) {
      return st * (n - 1) + dil * (k - 1) + 1;
    };
    p.shape = {b[kTraceN], b[kTraceC], span(s.strideH, b[kTraceQ], s.dilH, b[kTraceS]),
               span(s.strideW, b[kTraceP], s.dilW, b[kTraceR])};
    p.extent = {e[kTraceN], e[kTraceC], span(s.strideH, e[kTraceQ], s.dilH, e[kTraceS]),
                span(s.strideW, e[kTraceP], s.dilW, e[kTraceR])};
  } else if (t == kTraceWeight) {
    p.pos = {3, 2, -1, -1, 1, 0, -1};
    p.shape = {b[kTraceK], b[kTraceC], b[kTraceS], b[kTraceR]};
    p.extent = {e[kTraceK], e[kTraceC], e[kTraceS], e[kTraceR]};
  } else {
    p.pos = {-1, -1, 3, 2, -1, 1, 0};
    p.shape = {b[kTraceN], b[kTraceK], b[kTraceQ], b[kTraceP]};
    p.extent = {e[kTraceN], e[kTraceK], e[kTraceQ], e[kTraceP]};
  }
  int64_t elems = 1, tiles = 1;
  for (int a = 3; a >= 0; --a) {
    p.stride[a] = mul(elems, p.eb);
    p.gridStride[a] = tiles;
    elems = mul(elems, p.shape[a]);
    tiles = mul(tiles, p.shape[a] / std::max<int64_t>(p.extent[a], 1));
  }
  p.runAxis = 3;
  while (p.runAxis > 0 && p.extent[p.runAxis] == p.shape[p.runAxis]) --p.runAxis;
  p.runBytes = mul(p.extent[p.runAxis], p.stride[p.runAxis]);
  p.tileBytes = mul(mul(mul(p.extent[0], p.extent[1]), mul(p.extent[2], p.extent[3])), p.eb);
  p.slotBytes = roundUp(p.tileBytes, s.rowBytes);
  p.bytes = mul(elems, p.eb);
  if (p.layout == TraceLayout::RowAligned && t != kTraceInput) p.bytes = mul(tiles, p.slotBytes);
  if (p.layout == TraceLayout::RowAligned && t == kTraceInput) {
    // A block's bytes round up to the smallest divisor of the row size when they fit in a row, else to whole
    // rows, so that no block straddles a row; each channel plane starts on a row boundary.
    const int64_t raw = mul(mul(s.blockH, s.blockW), p.eb);
    p.blockBytes = raw;
    if (raw <= s.rowBytes)
      while (s.rowBytes % p.blockBytes != 0) ++p.blockBytes;
    else
      p.blockBytes = roundUp(raw, s.rowBytes);
    p.numBlkW = ceilDiv(p.shape[3], s.blockW);
    p.strideC = roundUp(mul(mul(ceilDiv(p.shape[2], s.blockH), p.numBlkW), p.blockBytes), s.rowBytes);
    p.bytes = mul(mul(p.shape[0], p.shape[1]), p.strideC);
  }
  return p;
}

std::array<int64_t, 4> boxOrigin(const TensorPlan& p, const Coords& c) {
  std::array<int64_t, 4> o{0, 0, 0, 0};
  for (int d = 0; d < kTraceDims; ++d)
    if (p.pos[d] >= 0) o[p.pos[d]] += c[d] * p.coef[d];
  return o;
}

int64_t gridIndex(const TensorPlan& p, const std::array<int64_t, 4>& o) {
  int64_t g = 0;
  for (int a = 0; a < 4; ++a) g += o[a] / p.extent[a] * p.gridStride[a];
  return g;
}

// Gathers a tile's ascending address runs into maximal contiguous runs before they reach the banks, so that
// the counts do not depend on how a layout's walk happens to cut its runs.
class RunSink {
 public:
  RunSink(OpenRowBanks& banks, int bank, int tensor, bool write)
      : m_banks(banks), m_bank(bank), m_tensor(tensor), m_write(write) {}
  void add(int64_t address, int64_t bytes) {
    if (m_len > 0 && address == m_start + m_len) {
      m_len += bytes;
      return;
    }
    flush();
    m_start = address;
    m_len = bytes;
  }
  void flush() {
    if (m_len > 0) m_banks.access(m_bank, m_start, m_len, m_tensor, m_write);
    m_len = 0;
  }

 private:
  OpenRowBanks& m_banks;
  int m_bank, m_tensor;
  bool m_write;
  int64_t m_start = 0, m_len = 0;
};

// One loop of the walk with what the walker needs about it, per tensor.
struct LoopPlan {
  int dim = 0;
  int64_t bound = 1;
  int64_t inner = 1;  // leaves per body
  std::array<bool, kTraceTensors> moves{};
  std::array<int64_t, kTraceTensors> step{};      // coordinate change per index in dim
  int64_t outGridStep = 0;                        // output tile-grid index change per index
  int64_t period = 0;                             // bodies per period; 0: no skip at this loop
  std::array<int64_t, kTraceTensors> rowShift{};  // rows per period of each tensor's addresses
};

// Address shift of tensor t after `count` bodies moving it `step` along dim: returns false unless some count
// <= limit makes it an exact translation by whole rows; then count (the smallest) and the shift in bytes.
bool bodyShift(const TensorPlan& p, const ConvTraceSpec& s, int t, int d, int64_t step, int64_t limit,
               int64_t& count, int64_t& bytes) {
  const int a = p.pos[d];
  const int64_t units = step * p.coef[d];  // box units per body along axis a
  int64_t blocks = 1, shift = 0;           // bodies until the shift is affine, and that shift
  if (p.layout == TraceLayout::Sequential) {
    shift = units * p.stride[a];
  } else if (t != kTraceInput) {
    shift = units / p.extent[a] * p.gridStride[a] * p.slotBytes;  // whole slots
  } else if (a <= 1) {
    shift = units * (a == 0 ? p.shape[1] : 1) * p.strideC;  // whole channel planes
  } else {
    const int64_t block = a == 2 ? s.blockH : s.blockW;
    blocks = block / std::gcd(units, block);
    if (blocks > limit) return false;
    shift = blocks * units / block * p.blockBytes * (a == 2 ? p.numBlkW : 1);
  }
  const int64_t rows = s.rowBytes / std::gcd(shift % s.rowBytes, s.rowBytes);
  count = blocks * rows;
  if (count > limit) return false;
  bytes = shift * rows;
  return true;
}

void planPeriod(const std::vector<TensorPlan>& tp, const ConvTraceSpec& s, LoopPlan& lp) {
  std::array<int64_t, kTraceTensors> count{1, 1, 1}, bytes{0, 0, 0};
  int64_t period = 1;
  for (int t = 0; t < kTraceTensors; ++t) {
    if (!lp.moves[t]) continue;
    if (!bodyShift(tp[t], s, t, lp.dim, lp.step[t], lp.bound, count[t], bytes[t])) return;
    period = std::lcm(period, count[t]);
    if (period > lp.bound) return;
  }
  if (lp.bound < 2 + 2 * period) return;  // bodies 0, 1 and one period run literally before any skip
  lp.period = period;
  for (int t = 0; t < kTraceTensors; ++t) lp.rowShift[t] = period / count[t] * bytes[t] / s.rowBytes;
}

// The statistics so far, or a period's, per tensor.
struct Snapshot {
  std::array<RowStats, kTraceTensors> stats;
  std::array<int64_t, kTraceTensors> fills{0, 0, 0};
};

// Output tile-grid steps of the loops inside a loop that move the output (to mark skipped bodies' tiles).
struct GridLoop {
  int64_t bound;
  int64_t gridStep;
};

class Walker {
 public:
  Walker(const ConvTraceSpec& s, std::vector<TensorPlan> tensors, std::vector<LoopPlan> loops, int64_t leaves,
         int slices);
  ConvTraceResult run();

 private:
  void walk(size_t depth);
  void leaf();
  void fetch(int t);
  void transfer(int t, const Coords& origin, bool write);
  void sequentialTile(const TensorPlan& p, const std::array<int64_t, 4>& o, RunSink& sink) const;
  void alignedInputTile(const TensorPlan& p, const std::array<int64_t, 4>& o, RunSink& sink) const;
  Snapshot snapshot() const;
  int64_t periodsToSkip(const LoopPlan& lp, int64_t k);
  void skip(size_t depth, const Snapshot& period, int64_t n);
  void markOutputs(size_t depth, size_t i, int64_t grid);
  int64_t sliceFirst(int64_t s) const { return m_leaves / m_slices * s + m_leaves % m_slices * s / m_slices; }
  void advanceSlice(int64_t flat);

  const ConvTraceSpec& m_spec;
  std::vector<TensorPlan> m_tensors;
  std::vector<LoopPlan> m_loops;
  std::vector<std::vector<GridLoop>> m_innerOutputLoops;  // per depth
  int64_t m_leaves;
  int64_t m_slices;
  OpenRowBanks m_banks;
  std::array<Coords, kTraceTensors> m_coords{}, m_resident{};
  std::array<bool, kTraceTensors> m_hasResident{false, false, false};
  std::array<int64_t, kTraceTensors> m_fills{0, 0, 0};
  std::vector<char> m_outputFetched;  // per output tile-grid index: fetched at least once
  int64_t m_flat = 0;                 // flat index of the next leaf
  int64_t m_skipped = 0;
  int64_t m_sliceEnd = 0;  // first leaf of the slice after the current one
};

Walker::Walker(const ConvTraceSpec& s, std::vector<TensorPlan> tensors, std::vector<LoopPlan> loops,
               int64_t leaves, int slices)
    : m_spec(s),
      m_tensors(std::move(tensors)),
      m_loops(std::move(loops)),
      m_leaves(leaves),
      m_slices(slices),
      m_banks(s.numBanks, s.rowBytes, kTraceTensors, slices) {
  const TensorPlan& out = m_tensors[kTraceOutput];
  int64_t tiles = 1;
  for (int a = 0; a < 4; ++a) tiles *= out.shape[a] / out.extent[a];
  m_outputFetched.assign(tiles, 0);
  m_innerOutputLoops.resize(m_loops.size());
  for (size_t i = 0; i < m_loops.size(); ++i)
    for (size_t j = i + 1; j < m_loops.size(); ++j)
      if (m_loops[j].moves[kTraceOutput])
        m_innerOutputLoops[i].push_back({m_loops[j].bound, m_loops[j].outGridStep});
  m_sliceEnd = sliceFirst(1);
}

ConvTraceResult Walker::run() {
  walk(0);
  if (m_hasResident[kTraceOutput]) transfer(kTraceOutput, m_resident[kTraceOutput], true);
  ConvTraceResult r;
  for (int t = 0; t < kTraceTensors; ++t) r.tensors[t] = m_banks.tensor(t);
  r.fills = m_fills;
  for (int b = 0; b < m_banks.numBanks(); ++b) r.banks.push_back(m_banks.bank(b));
  for (int s = 0; s < m_slices; ++s) {
    TraceSlice slice{sliceFirst(s), sliceFirst(s + 1) - 1, {}};
    for (int b = 0; b < m_banks.numBanks(); ++b) slice.banks.push_back(m_banks.sliceBank(s, b));
    r.slices.push_back(std::move(slice));
  }
  r.iterations = m_leaves;
  r.skippedIterations = m_skipped;
  return r;
}

void Walker::advanceSlice(int64_t flat) {
  while (flat >= m_sliceEnd) {
    m_banks.setSlice(m_banks.slice() + 1);
    m_sliceEnd = sliceFirst(m_banks.slice() + 1);
  }
}

void Walker::walk(size_t depth) {
  if (depth == m_loops.size()) return leaf();
  const LoopPlan& lp = m_loops[depth];
  std::array<int64_t, kTraceTensors> saved;
  for (int t = 0; t < kTraceTensors; ++t) saved[t] = m_coords[t][lp.dim];
  const bool periodic = m_spec.skipPeriodic && lp.period > 0;
  Snapshot start, period;
  bool measured = false;
  for (int64_t k = 0; k < lp.bound;) {
    for (int t = 0; t < kTraceTensors; ++t)
      if (lp.moves[t]) m_coords[t][lp.dim] = saved[t] + k * lp.step[t];
    if (periodic) {
      if (k == 2) start = snapshot();
      if (k == 2 + lp.period) {
        period = snapshot();
        for (int t = 0; t < kTraceTensors; ++t) {
          period.stats[t] = period.stats[t] - start.stats[t];
          period.fills[t] -= start.fills[t];
        }
        measured = true;
      }
      const int64_t n = measured ? periodsToSkip(lp, k) : 0;
      if (n > 0) {
        skip(depth, period, n);
        k += n * lp.period;
        continue;
      }
    }
    walk(depth + 1);
    ++k;
  }
  for (int t = 0; t < kTraceTensors; ++t) m_coords[t][lp.dim] = saved[t];
}

void Walker::leaf() {
  if (m_flat >= m_sliceEnd) advanceSlice(m_flat);
  for (int t = 0; t < kTraceTensors; ++t)
    if (!m_hasResident[t] || m_coords[t] != m_resident[t]) fetch(t);
  ++m_flat;
}

void Walker::fetch(int t) {
  if (t == kTraceOutput) {
    // Partial sums: the resident tile goes back first; a tile never fetched before starts at zero (no read).
    if (m_hasResident[t]) transfer(t, m_resident[t], true);
    const TensorPlan& p = m_tensors[t];
    char& fetched = m_outputFetched[gridIndex(p, boxOrigin(p, m_coords[t]))];
    if (fetched) transfer(t, m_coords[t], false);
    fetched = 1;
  } else {
    transfer(t, m_coords[t], false);
  }
  m_resident[t] = m_coords[t];
  m_hasResident[t] = true;
  ++m_fills[t];
}

void Walker::transfer(int t, const Coords& origin, bool write) {
  const TensorPlan& p = m_tensors[t];
  const std::array<int64_t, 4> o = boxOrigin(p, origin);
  RunSink sink(m_banks, p.bank, t, write);
  if (p.layout == TraceLayout::Sequential)
    sequentialTile(p, o, sink);
  else if (t == kTraceInput)
    alignedInputTile(p, o, sink);
  else
    sink.add(p.base + gridIndex(p, o) * p.slotBytes, p.tileBytes);  // the tile's own slot of whole rows
  sink.flush();
}

// Row-major box: axes runAxis..3 are contiguous, so one run per index of the axes before.
void Walker::sequentialTile(const TensorPlan& p, const std::array<int64_t, 4>& o, RunSink& sink) const {
  int64_t start = p.base;
  for (int a = 0; a < 4; ++a) start += o[a] * p.stride[a];
  const int64_t n0 = p.runAxis > 0 ? p.extent[0] : 1, n1 = p.runAxis > 1 ? p.extent[1] : 1,
                n2 = p.runAxis > 2 ? p.extent[2] : 1;
  for (int64_t i0 = 0; i0 < n0; ++i0)
    for (int64_t i1 = 0; i1 < n1; ++i1)
      for (int64_t i2 = 0; i2 < n2; ++i2)
        sink.add(start + i0 * p.stride[0] + i1 * p.stride[1] + i2 * p.stride[2], p.runBytes);
}

// Row-aligned input (docs/convmap.md, `pimopt` eq. 52-56): per channel plane, the blocks the tile touches in
// block order, and in each block the tile's rows: ascending addresses.
void Walker::alignedInputTile(const TensorPlan& p, const std::array<int64_t, 4>& o, RunSink& sink) const {
  const int64_t bh = m_spec.blockH, bw = m_spec.blockW;
  const int64_t h0 = o[2], h1 = o[2] + p.extent[2], w0 = o[3], w1 = o[3] + p.extent[3];
  for (int64_t n = o[0]; n < o[0] + p.extent[0]; ++n)
    for (int64_t c = o[1]; c < o[1] + p.extent[1]; ++c) {
      const int64_t plane = p.base + (n * p.shape[1] + c) * p.strideC;
      for (int64_t bi = h0 / bh; bi <= (h1 - 1) / bh; ++bi) {
        const int64_t hlo = std::max(h0, bi * bh), hhi = std::min(h1, (bi + 1) * bh);
        for (int64_t bj = w0 / bw; bj <= (w1 - 1) / bw; ++bj) {
          const int64_t wlo = std::max(w0, bj * bw), whi = std::min(w1, (bj + 1) * bw);
          const int64_t block = plane + (bi * p.numBlkW + bj) * p.blockBytes;
          for (int64_t h = hlo; h < hhi; ++h)
            sink.add(block + ((h - bi * bh) * bw + (wlo - bj * bw)) * p.eb, (whi - wlo) * p.eb);
        }
      }
    }
}

Snapshot Walker::snapshot() const {
  Snapshot s;
  for (int t = 0; t < kTraceTensors; ++t) s.stats[t] = m_banks.tensor(t);
  s.fills = m_fills;
  return s;
}

// Whole periods from body k on that fit in the loop and in the current time slice.
int64_t Walker::periodsToSkip(const LoopPlan& lp, int64_t k) {
  advanceSlice(m_flat);
  const int64_t byBodies = (lp.bound - k) / lp.period;
  const int64_t bySlice = (m_sliceEnd - m_flat) / (lp.period * lp.inner);
  return std::min(byBodies, bySlice);
}

void Walker::skip(size_t depth, const Snapshot& period, int64_t n) {
  const LoopPlan& lp = m_loops[depth];
  std::vector<bool> touched(m_banks.numBanks(), false);
  for (int t = 0; t < kTraceTensors; ++t) {
    m_banks.addRepeated(m_tensors[t].bank, t, period.stats[t], n);
    m_fills[t] += period.fills[t] * n;
    if (period.stats[t].activations + period.stats[t].rowHits > 0) touched[m_tensors[t].bank] = true;
  }
  // A bank the period touched ends with the row its last access opened, shifted like that access's tensor.
  for (int b = 0; b < m_banks.numBanks(); ++b)
    if (touched[b]) m_banks.shiftOpenRow(b, n * lp.rowShift[m_banks.openTensor(b)]);
  const int64_t bodies = n * lp.period;
  for (int t = 0; t < kTraceTensors; ++t)
    if (lp.moves[t]) m_resident[t][lp.dim] += bodies * lp.step[t];
  if (lp.moves[kTraceOutput]) {
    const TensorPlan& out = m_tensors[kTraceOutput];
    const int64_t first = gridIndex(out, boxOrigin(out, m_coords[kTraceOutput]));
    for (int64_t j = 0; j < bodies; ++j) markOutputs(depth, 0, first + j * lp.outGridStep);
  }
  m_flat += bodies * lp.inner;
  m_skipped += bodies * lp.inner;
}

// Every output tile of a skipped body becomes "fetched before": all index combinations of the inner loops
// moving the output.
void Walker::markOutputs(size_t depth, size_t i, int64_t grid) {
  const std::vector<GridLoop>& inner = m_innerOutputLoops[depth];
  if (i == inner.size()) {
    m_outputFetched[grid] = 1;
    return;
  }
  for (int64_t j = 0; j < inner[i].bound; ++j) markOutputs(depth, i + 1, grid + j * inner[i].gridStep);
}

std::vector<LoopPlan> planLoops(const ConvTraceSpec& s, const std::vector<TensorPlan>& tp) {
  std::vector<TraceLoop> loops;
  for (const TraceLoop& l : s.loops)
    if (l.bound > 1) loops.push_back(l);  // a loop of bound 1 changes nothing
  std::vector<LoopPlan> plans(loops.size());
  for (size_t i = 0; i < loops.size(); ++i) {
    LoopPlan& lp = plans[i];
    lp.dim = loops[i].dim;
    lp.bound = loops[i].bound;
    for (size_t j = i + 1; j < loops.size(); ++j) lp.inner *= loops[j].bound;
    for (int t = 0; t < kTraceTensors; ++t) {
      lp.moves[t] = kRelevant[lp.dim][t] && loops[i].level > s.childLevel[t];
      if (!lp.moves[t]) continue;
      // Mixed radix: one index of this loop steps over the tile and every inner loop of the same dimension
      // that also moves the tile.
      lp.step[t] = s.tileExtent[t][lp.dim];
      for (size_t j = i + 1; j < loops.size(); ++j)
        if (loops[j].dim == lp.dim && loops[j].level > s.childLevel[t]) lp.step[t] *= loops[j].bound;
    }
    if (lp.moves[kTraceOutput]) {
      const TensorPlan& out = tp[kTraceOutput];
      const int a = out.pos[lp.dim];
      lp.outGridStep = lp.step[kTraceOutput] / out.extent[a] * out.gridStride[a];
    }
    planPeriod(tp, s, lp);
  }
  return plans;
}

// What the walk needs, planned once from a validated spec.
struct Plan {
  std::vector<TensorPlan> tensors;
  std::vector<LoopPlan> loops;
  int64_t leaves = 1;
  int slices = 1;
};

Plan plan(const ConvTraceSpec& spec) {
  validate(spec);
  Plan p;
  for (int t = 0; t < kTraceTensors; ++t) p.tensors.push_back(planTensor(spec, t));
  // Tensors sharing a bank follow each other, each from a row boundary: rows of two tensors never coincide.
  for (int t = 0; t < kTraceTensors; ++t)
    for (int u = 0; u < t; ++u)
      if (p.tensors[u].bank == p.tensors[t].bank)
        p.tensors[t].base += roundUp(p.tensors[u].bytes, spec.rowBytes);
  p.loops = planLoops(spec, p.tensors);
  for (const LoopPlan& l : p.loops) p.leaves *= l.bound;
  p.slices = static_cast<int>(std::min<int64_t>(spec.slices, p.leaves));
  return p;
}

}  // namespace

ConvTraceResult traceConv(const ConvTraceSpec& spec) {
  Plan p = plan(spec);
  Walker walker(spec, std::move(p.tensors), std::move(p.loops), p.leaves, p.slices);
  return walker.run();
}

// Walker::walk runs, per entry of a loop with period P, bodies 0, 1 and one period, then skips whole periods
// as far as the loop allows, and fewer than P bodies at the end: at most 1 + 2P bodies. A time-slice boundary
// stops a skip where less than a period is left before it, so each of the slices - 1 boundaries adds at most
// P + 1 bodies of each skipping loop, in the one entry of it that holds the boundary. A skip of loop d marks
// each output tile of its skipped bodies once: per entry at most d's bound times the bounds of the inner
// loops moving the output. Every mark stands for a skipped leaf, so the steps never exceed the leaves.
double traceWalkSteps(const ConvTraceSpec& spec) {
  const Plan p = plan(spec);
  double entries = 1, marks = 0;  // entries of loop d: the bodies walked of the loops above it
  for (size_t d = 0; d < p.loops.size(); ++d) {
    const LoopPlan& lp = p.loops[d];
    const double bound = static_cast<double>(lp.bound), period = static_cast<double>(lp.period);
    if (!spec.skipPeriodic || lp.period == 0) {
      entries *= bound;
      continue;
    }
    if (lp.moves[kTraceOutput]) {
      double tiles = bound;
      for (size_t j = d + 1; j < p.loops.size(); ++j)
        if (p.loops[j].moves[kTraceOutput]) tiles *= static_cast<double>(p.loops[j].bound);
      marks += entries * tiles;
    }
    entries = entries * std::min(bound, 1 + 2 * period) + (p.slices - 1) * (period + 1);
  }
  return std::min(entries + marks, static_cast<double>(p.leaves));
}

}  // namespace pim::sim
