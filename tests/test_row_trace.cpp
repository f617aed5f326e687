// SPDX-License-Identifier: Apache-2.0
// The DRAM row-activation trace (sim/row_trace.h) against the hand-derived cases of
// ../shared/specs/pim-optimizer.md, a conv nest counted by hand, an element-by-element reference walk written
// from docs/convmap.md, and its periodic skip against the plain walk.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/row_trace.h"

namespace pim::sim {
void PrintTo(const RowStats& s, std::ostream* os) {
  *os << "{acts " << s.activations << ", hits " << s.rowHits << ", read " << s.bytesRead << ", written "
      << s.bytesWritten << "}";
}
}  // namespace pim::sim

using namespace pim::sim;

namespace {

constexpr int R = kTraceR, S = kTraceS, P = kTraceP, Q = kTraceQ, C = kTraceC, K = kTraceK, N = kTraceN;
constexpr int IN = kTraceInput, W = kTraceWeight, OUT = kTraceOutput;
// docs/convmap.md: R, S, C -> input, weight; P, Q, N -> input, output; K -> weight, output.
constexpr bool kRelevant[kTraceDims][3] = {{1, 1, 0}, {1, 1, 0}, {1, 0, 1}, {1, 0, 1},
                                           {1, 1, 0}, {0, 1, 1}, {1, 0, 1}};

// A layer whose tensors start as whole tiles kept at level 1; loop() then cuts the tiles of the tensors it
// moves.
ConvTraceSpec layer(int64_t r, int64_t s, int64_t p, int64_t q, int64_t c, int64_t k, int64_t n = 1) {
  ConvTraceSpec spec;
  spec.bounds = {r, s, p, q, c, k, n};
  spec.childLevel = {1, 1, 1};
  for (auto& e : spec.tileExtent) e = spec.bounds;
  return spec;
}

void loop(ConvTraceSpec& spec, int dim, int64_t bound, int level = 3) {
  spec.loops.push_back({dim, bound, level});
  for (int t = 0; t < kTraceTensors; ++t)
    if (level > spec.childLevel[t]) spec.tileExtent[t][dim] /= bound;
}

ConvTraceResult plain(ConvTraceSpec spec) {
  spec.skipPeriodic = false;
  return traceConv(spec);
}

void expectSameTrace(const ConvTraceResult& a, const ConvTraceResult& b) {
  EXPECT_EQ(a.tensors, b.tensors);
  EXPECT_EQ(a.fills, b.fills);
  EXPECT_EQ(a.banks, b.banks);
  EXPECT_EQ(a.iterations, b.iterations);
  ASSERT_EQ(a.slices.size(), b.slices.size());
  for (size_t i = 0; i < a.slices.size(); ++i) {
    EXPECT_EQ(a.slices[i].firstIteration, b.slices[i].firstIteration);
    EXPECT_EQ(a.slices[i].lastIteration, b.slices[i].lastIteration);
    EXPECT_EQ(a.slices[i].banks, b.slices[i].banks) << "slice " << i;
  }
}

// ---- The spec's hand-derived cases, on the banks directly (1-byte elements, one tensor, one bank).

TEST(RowTraceBanks, HandDerivedStreamAndReuse) {
  OpenRowBanks stream(1, 1024);
  stream.access(0, 0, 4096, 0, false);  // 4,096 B read once in order: rows 0..3
  EXPECT_EQ(stream.bank(0).activations, 4);
  EXPECT_EQ(stream.bank(0).bytesRead, 4096);
  OpenRowBanks chunks(1, 1024);
  for (int64_t a = 0; a < 4096; a += 64) chunks.access(0, a, 64, 0, false);  // same stream in 64-B runs
  EXPECT_EQ(chunks.bank(0).activations, 4);
  EXPECT_EQ(chunks.bank(0).rowHits, 60);
  OpenRowBanks small(1, 1024);
  for (int i = 0; i < 8; ++i) small.access(0, 0, 512, 0, false);  // 512 B read 8 times: row 0 stays open
  EXPECT_EQ(small.bank(0).activations, 1);
  EXPECT_EQ(small.bank(0).rowHits, 7);
  OpenRowBanks large(1, 1024);
  for (int i = 0; i < 3; ++i) large.access(0, 0, 4096, 0, false);  // 3 passes over 4 rows
  EXPECT_EQ(large.bank(0).activations, 12);
}

TEST(RowTraceBanks, HandDerivedTransposedWalk) {
  // 16 x 16 row-major, 64-B rows hold 4 matrix rows: a column visits rows 0,0,0,0,1,...,3 (4 activations).
  OpenRowBanks byColumn(1, 64), byRow(1, 64);
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 16; ++i) byColumn.access(0, i * 16 + j, 1, 0, false);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) byRow.access(0, i * 16 + j, 1, 0, false);
  EXPECT_EQ(byColumn.bank(0).activations, 64);
  EXPECT_EQ(byRow.bank(0).activations, 4);
}

TEST(RowTraceBanks, HandDerivedSmallTiles) {
  // Four 48-B tiles back to back, 64-B rows: tile i covers bytes 48i..48i+47, rows {0}, {0,1}, {1,2}, {2}.
  OpenRowBanks once(1, 64), twice(1, 64), aligned(1, 64);
  for (int i = 0; i < 4; ++i) once.access(0, 48 * i, 48, 0, false);
  EXPECT_EQ(once.bank(0).activations, 3);
  // Twice each: 0 | 0 | 0,1 | 0,1 | 1,2 | 1,2 | 2 | 2 -> 1 + 0 + 1 + 2 + 1 + 2 + 0 + 0 = 7.
  for (int i = 0; i < 4; ++i)
    for (int rep = 0; rep < 2; ++rep) twice.access(0, 48 * i, 48, 0, false);
  EXPECT_EQ(twice.bank(0).activations, 7);
  // One tile per row: each tile's second read hits.
  for (int i = 0; i < 4; ++i)
    for (int rep = 0; rep < 2; ++rep) aligned.access(0, 64 * i, 48, 0, false);
  EXPECT_EQ(aligned.bank(0).activations, 4);
  EXPECT_EQ(aligned.bank(0).rowHits, 4);
}

TEST(RowTraceBanks, SharedBankThrashesAndSlicesSplitCounts) {
  OpenRowBanks shared(2, 1024, 2, 2), own(2, 1024, 2);
  for (int i = 0; i < 4; ++i) {
    shared.setSlice(i / 2);
    shared.access(0, 0, 64, 0, false);    // tensor 0, row 0
    shared.access(0, 2048, 64, 1, true);  // tensor 1, row 2, same bank
    own.access(0, 0, 64, 0, false);
    own.access(1, 2048, 64, 1, true);
  }
  EXPECT_EQ(shared.bank(0).activations, 8);
  EXPECT_EQ(shared.tensor(1).bytesWritten, 256);
  EXPECT_EQ(shared.sliceBank(0, 0).activations, 4);
  EXPECT_EQ(shared.sliceBank(1, 0).activations, 4);
  EXPECT_EQ(own.bank(0).activations + own.bank(1).activations, 2);
  EXPECT_EQ(own.bank(0).rowHits, 3);
  EXPECT_THROW(shared.access(2, 0, 1, 0, false), std::invalid_argument);
  EXPECT_THROW(shared.access(0, 0, 0, 0, false), std::invalid_argument);
  EXPECT_THROW(shared.setSlice(2), std::invalid_argument);
}

// ---- The same cases as conv walks where the reuse rule can express them (the weight, KCSR, 1-B elements).

TEST(RowTraceConv, HandDerivedCasesAsWeightWalks) {
  ConvTraceSpec stream = layer(1, 1, 1, 1, 1024, 4);  // 4,096-B weight in 4 tiles of one row, read once
  loop(stream, K, 4);
  EXPECT_EQ(traceConv(stream).tensors[W].activations, 4);
  EXPECT_EQ(traceConv(stream).fills[W], 4);

  ConvTraceSpec large = layer(1, 1, 3, 1, 1024, 4);  // the same, under an irrelevant loop of 3: 3 passes
  loop(large, P, 3);
  loop(large, K, 4);
  EXPECT_EQ(traceConv(large).tensors[W].activations, 12);

  ConvTraceSpec small = layer(1, 1, 4, 1, 256, 2);  // 512 B in one row, 2 tiles x 4 passes = 8 reads
  loop(small, P, 4);
  loop(small, K, 2);
  EXPECT_EQ(traceConv(small).fills[W], 8);
  EXPECT_EQ(traceConv(small).tensors[W].activations, 1);

  // 16 x 16 weight (k, c) in 1-element tiles, 64-B rows: k inner walks a column (stride 16), c inner a row.
  for (const bool byColumn : {true, false}) {
    ConvTraceSpec t = layer(1, 1, 1, 1, 16, 16);
    t.rowBytes = 64;
    loop(t, byColumn ? C : K, 16);
    loop(t, byColumn ? K : C, 16);
    EXPECT_EQ(traceConv(t).tensors[W].activations, byColumn ? 64 : 4);
  }

  // Four 48-B tiles, 64-B rows, read once: packed 3 activations; row-aligned (one slot row per tile) 4.
  for (const TraceLayout layout : {TraceLayout::Sequential, TraceLayout::RowAligned}) {
    ConvTraceSpec t = layer(1, 1, 1, 1, 48, 4);
    t.rowBytes = 64;
    t.layout[W] = layout;
    loop(t, K, 4);
    EXPECT_EQ(traceConv(t).tensors[W].activations, layout == TraceLayout::Sequential ? 3 : 4);
  }
}

// ---- GCD block crossings (`pimopt` 5.5) on a row-aligned input: W_in = 1, one 8-row block per 8-B DRAM row
// and the planes' blocks back to back, so a fill touches one row, or two when its tile crosses a block edge;
// rows visited (activations + hits) minus fills counts the crossing tiles.

ConvTraceResult crossingWalk(int64_t s, int64_t q, int64_t stride) {
  ConvTraceSpec spec = layer(1, s, 1, q, 1, 1);
  spec.strideH = stride;
  spec.rowBytes = 8;
  spec.layout[IN] = TraceLayout::RowAligned;
  spec.blockH = 8;
  spec.blockW = 1;
  loop(spec, Q, q);  // one output row per tile: input tile of s rows, step `stride` rows
  return traceConv(spec);
}

TEST(RowTraceConv, GcdCrossingCases) {
  // Extent 3, step 2 (S = 3, stride 2), 6 tiles: H_in = 2*5 + 3 = 13, the spec's 14th row is touched by no
  // tile. Starts 0, 2, 4, 6, 8, 10: only the tile at 6 (rows 6..8) crosses the block edge at 8.
  const ConvTraceResult a = crossingWalk(3, 6, 2);
  EXPECT_EQ(a.fills[IN], 6);
  EXPECT_EQ(a.tensors[IN].activations + a.tensors[IN].rowHits - a.fills[IN], 1);
  EXPECT_EQ(a.tensors[IN].activations, 2);  // rows 0 then 1
  // Extent 4, step 3 (S = 4, stride 3), 11 tiles over H_in = 34: starts 6, 15, 21 and 30 cross.
  const ConvTraceResult b = crossingWalk(4, 11, 3);
  EXPECT_EQ(b.fills[IN], 11);
  EXPECT_EQ(b.tensors[IN].activations + b.tensors[IN].rowHits - b.fills[IN], 4);
}

// ---- A conv nest counted by hand. C = 2, K = 2, P = 8 (R = S = Q = N = 1), 1-B elements, 4-B rows; loops
// K:2, C:2, P:2 outermost first, tiles c = k = 1, p = 4. Input NCHW: c-plane of 8 B, tile (c, p) at row
// 2c + p. Weight KCSR: 4 B, one row. Output NKQP: tile (k, p) at row 2k + p.
// Iterations (k, c, p): input fetched every time, rows 0 1 2 3 0 1 2 3: 8 activations.
// Weight fetched when (k, c) changes: row 0 four times: 1 activation, 3 hits.
// Output, one bank: (0,0,0) first fill, no read; (0,0,1) W0 act, first; (0,1,0) W1 act, R0 act; (0,1,1) W0
// hit, R1 act; (1,0,0) W1 hit, first; (1,0,1) W2 act, first; (1,1,0) W3 act, R2 act; (1,1,1) W2 hit, R3 act;
// end W3 hit: 8 activations, 4 hits, 4 reads (16 B), 8 write-backs (32 B), 8 fills.
ConvTraceSpec tinyNest() {
  ConvTraceSpec spec = layer(1, 1, 8, 1, 2, 2);
  spec.rowBytes = 4;
  loop(spec, K, 2);
  loop(spec, C, 2);
  loop(spec, P, 2);
  return spec;
}

TEST(RowTraceConv, TinyNestCountedByHand) {
  const ConvTraceResult r = traceConv(tinyNest());
  EXPECT_EQ(r.iterations, 8);
  EXPECT_EQ(r.fills, (std::array<int64_t, 3>{8, 4, 8}));
  EXPECT_EQ(r.tensors[IN], (RowStats{8, 0, 32, 0}));
  EXPECT_EQ(r.tensors[W], (RowStats{1, 3, 4, 0}));
  EXPECT_EQ(r.tensors[OUT], (RowStats{8, 4, 16, 32}));
  EXPECT_EQ(r.banks[0], r.tensors[IN]);
  EXPECT_EQ(r.banks[2], r.tensors[OUT]);
}

TEST(RowTraceConv, SharedBankInterleaves) {
  // Input and weight in bank 0: the weight follows the input's 4 rows (16 B), at row 4. Each weight read now
  // follows an input read of another row: 4 activations instead of 1.
  ConvTraceSpec spec = tinyNest();
  spec.numBanks = 2;
  spec.bank = {0, 0, 1};
  const ConvTraceResult r = traceConv(spec);
  EXPECT_EQ(r.tensors[IN].activations, 8);
  EXPECT_EQ(r.tensors[W].activations, 4);
  EXPECT_EQ(r.tensors[W].rowHits, 0);
  EXPECT_EQ(r.banks[0].activations, 12);
  EXPECT_EQ(r.banks[1], r.tensors[OUT]);
}

TEST(RowTraceConv, OutputFirstFillReadsNothingAndEveryFillIsWrittenBack) {
  ConvTraceSpec spec = layer(1, 1, 4, 1, 2, 1);
  loop(spec, P, 4);  // four output tiles of one element, each filled once
  ConvTraceResult r = traceConv(spec);
  EXPECT_EQ(r.fills[OUT], 4);
  EXPECT_EQ(r.tensors[OUT].bytesRead, 0);
  EXPECT_EQ(r.tensors[OUT].bytesWritten, 4);
  spec = layer(1, 1, 4, 1, 2, 1);
  loop(spec, C, 2);  // a reduction loop outside: the second pass reads the partial sums back
  loop(spec, P, 4);
  r = traceConv(spec);
  EXPECT_EQ(r.fills[OUT], 8);
  EXPECT_EQ(r.tensors[OUT].bytesRead, 4);
  EXPECT_EQ(r.tensors[OUT].bytesWritten, 8);
  spec = layer(1, 1, 4, 1, 2, 1);
  loop(spec, P, 4);  // inside: the reduction reuses the resident tile, nothing read back
  loop(spec, C, 2);
  r = traceConv(spec);
  EXPECT_EQ(r.fills[OUT], 4);
  EXPECT_EQ(r.tensors[OUT].bytesRead, 0);
}

TEST(RowTraceConv, RejectsInconsistentSpecs) {
  const auto throws = [](auto edit) {
    ConvTraceSpec spec = tinyNest();
    edit(spec);
    EXPECT_THROW(traceConv(spec), std::invalid_argument);
  };
  throws([](ConvTraceSpec& s) { s.tileExtent[IN][P] = 3; });   // does not divide P = 8
  throws([](ConvTraceSpec& s) { s.tileExtent[OUT][P] = 8; });  // 8 x loop 2 != 8
  throws([](ConvTraceSpec& s) { s.bounds[C] = 0; });
  throws([](ConvTraceSpec& s) { s.rowBytes = 0; });
  throws([](ConvTraceSpec& s) { s.elementBytes[W] = 0; });
  throws([](ConvTraceSpec& s) { s.bank[OUT] = 3; });
  throws([](ConvTraceSpec& s) { s.loops[1].level = 4; });  // levels must not grow inwards
  throws([](ConvTraceSpec& s) { s.loops[0].dim = 7; });
  throws([](ConvTraceSpec& s) { s.childLevel[W] = 3; });  // loops at level 3 then sit inside the tile
  throws([](ConvTraceSpec& s) {
    s.layout[IN] = TraceLayout::RowAligned;
    s.blockH = 0;
  });
}

// ---- An element-by-element reference of docs/convmap.md: every element's address by the layout formulas,
// sorted, merged into contiguous runs per fill; the loop nest as an odometer; fetched outputs in a set.

struct Reference {
  const ConvTraceSpec& s;
  int64_t hIn, wIn, blockBytes = 0, strideC = 0;
  std::array<int64_t, 3> base{0, 0, 0};

  explicit Reference(const ConvTraceSpec& spec) : s(spec) {
    const auto& b = s.bounds;
    hIn = s.strideH * (b[Q] - 1) + s.dilH * (b[S] - 1) + 1;
    wIn = s.strideW * (b[P] - 1) + s.dilW * (b[R] - 1) + 1;
    const int64_t raw = s.blockH * s.blockW * s.elementBytes[IN];
    blockBytes = raw;
    if (raw > s.rowBytes) blockBytes = (raw + s.rowBytes - 1) / s.rowBytes * s.rowBytes;
    while (raw <= s.rowBytes && s.rowBytes % blockBytes != 0) ++blockBytes;
    const int64_t nbh = (hIn + s.blockH - 1) / s.blockH, nbw = (wIn + s.blockW - 1) / s.blockW;
    strideC = (nbh * nbw * blockBytes + s.rowBytes - 1) / s.rowBytes * s.rowBytes;
    for (int t = 1; t < 3; ++t)
      for (int u = 0; u < t; ++u)
        if (s.bank[u] == s.bank[t]) base[t] += (bytes(u) + s.rowBytes - 1) / s.rowBytes * s.rowBytes;
  }
  // The weight's or output's dimensions in the tensor's own order (KCSR, NKQP), outermost first.
  std::array<int, 4> order(int t) const {
    return t == W ? std::array<int, 4>{K, C, S, R} : std::array<int, 4>{N, K, Q, P};
  }
  int64_t slotBytes(int t) const {
    int64_t e = s.elementBytes[t];
    for (int d : order(t)) e *= s.tileExtent[t][d];
    return (e + s.rowBytes - 1) / s.rowBytes * s.rowBytes;
  }
  int64_t bytes(int t) const {
    const auto& b = s.bounds;
    if (t == IN)
      return s.layout[IN] == TraceLayout::RowAligned ? b[N] * b[C] * strideC
                                                     : b[N] * b[C] * hIn * wIn * s.elementBytes[IN];
    int64_t all = s.elementBytes[t], tiles = 1;
    for (int d : order(t)) all *= b[d], tiles *= b[d] / s.tileExtent[t][d];
    return s.layout[t] == TraceLayout::RowAligned ? tiles * slotBytes(t) : all;
  }
  // Address of weight/output element x (coordinates in order(t)) of the tile at origin o.
  int64_t address(int t, const std::array<int64_t, 4>& x, const std::array<int64_t, 4>& o) const {
    const auto o4 = order(t);
    const int64_t eb = s.elementBytes[t];
    int64_t flat = 0, slot = 0, inTile = 0;
    for (int i = 0; i < 4; ++i) {
      const int64_t e = s.tileExtent[t][o4[i]];
      flat = flat * s.bounds[o4[i]] + x[i];
      slot = slot * (s.bounds[o4[i]] / e) + o[i] / e;
      inTile = inTile * e + (x[i] - o[i]);
    }
    return base[t] + (s.layout[t] == TraceLayout::RowAligned ? slot * slotBytes(t) + inTile * eb : flat * eb);
  }
  int64_t inputAddress(int64_t n, int64_t c, int64_t h, int64_t w) const {
    const int64_t eb = s.elementBytes[IN];
    if (s.layout[IN] == TraceLayout::Sequential)
      return base[IN] + (((n * s.bounds[C] + c) * hIn + h) * wIn + w) * eb;
    const int64_t nbw = (wIn + s.blockW - 1) / s.blockW;
    return base[IN] + (n * s.bounds[C] + c) * strideC + (h / s.blockH * nbw + w / s.blockW) * blockBytes +
           ((h % s.blockH) * s.blockW + w % s.blockW) * eb;
  }
  std::vector<int64_t> tileAddresses(int t, const std::array<int64_t, kTraceDims>& org) const;
  ConvTraceResult run() const;
};

std::vector<int64_t> Reference::tileAddresses(int t, const std::array<int64_t, kTraceDims>& org) const {
  const auto& e = s.tileExtent[t];
  std::vector<int64_t> out;
  if (t == IN) {
    const int64_t h0 = org[Q] * s.strideH + org[S] * s.dilH, w0 = org[P] * s.strideW + org[R] * s.dilW;
    const int64_t he = s.strideH * (e[Q] - 1) + s.dilH * (e[S] - 1) + 1;
    const int64_t we = s.strideW * (e[P] - 1) + s.dilW * (e[R] - 1) + 1;
    for (int64_t n = org[N]; n < org[N] + e[N]; ++n)
      for (int64_t c = org[C]; c < org[C] + e[C]; ++c)
        for (int64_t h = h0; h < h0 + he; ++h)
          for (int64_t w = w0; w < w0 + we; ++w) out.push_back(inputAddress(n, c, h, w));
    return out;
  }
  const auto o4 = order(t);
  const std::array<int64_t, 4> o{org[o4[0]], org[o4[1]], org[o4[2]], org[o4[3]]};
  std::array<int64_t, 4> x{};
  for (x[0] = o[0]; x[0] < o[0] + e[o4[0]]; ++x[0])
    for (x[1] = o[1]; x[1] < o[1] + e[o4[1]]; ++x[1])
      for (x[2] = o[2]; x[2] < o[2] + e[o4[2]]; ++x[2])
        for (x[3] = o[3]; x[3] < o[3] + e[o4[3]]; ++x[3]) out.push_back(address(t, x, o));
  return out;
}

ConvTraceResult Reference::run() const {
  int64_t leaves = 1;
  for (const TraceLoop& l : s.loops) leaves *= l.bound;
  const int64_t slices = std::min<int64_t>(s.slices, leaves);
  OpenRowBanks banks(s.numBanks, s.rowBytes, 3, static_cast<int>(slices));
  ConvTraceResult r;
  const auto transfer = [&](int t, const std::array<int64_t, kTraceDims>& org, bool write) {
    std::vector<int64_t> a = tileAddresses(t, org);
    std::sort(a.begin(), a.end());
    const int64_t eb = s.elementBytes[t];
    for (size_t i = 0; i < a.size();) {
      size_t j = i + 1;
      while (j < a.size() && a[j] == a[j - 1] + eb) ++j;
      banks.access(s.bank[t], a[i], static_cast<int64_t>(j - i) * eb, t, write);
      i = j;
    }
  };
  std::vector<int64_t> idx(s.loops.size(), 0);
  std::array<std::array<int64_t, kTraceDims>, 3> resident{};
  std::array<bool, 3> has{false, false, false};
  std::set<std::array<int64_t, kTraceDims>> fetchedOutputs;
  for (int64_t leaf = 0; leaf < leaves; ++leaf) {
    int slice = 0;
    while (slice + 1 < slices && (slice + 1) * leaves / slices <= leaf) ++slice;
    banks.setSlice(slice);
    for (int t = 0; t < 3; ++t) {
      std::array<int64_t, kTraceDims> org{};
      for (size_t i = 0; i < s.loops.size(); ++i) {  // origin: index times the inner same-dim loops' product
        const TraceLoop& l = s.loops[i];
        if (l.level <= s.childLevel[t]) continue;
        int64_t step = s.tileExtent[t][l.dim];
        for (size_t j = i + 1; j < s.loops.size(); ++j)
          if (s.loops[j].dim == l.dim && s.loops[j].level > s.childLevel[t]) step *= s.loops[j].bound;
        org[l.dim] += idx[i] * step;
      }
      for (int d = 0; d < kTraceDims; ++d)
        if (!kRelevant[d][t]) org[d] = 0;
      if (has[t] && org == resident[t]) continue;
      if (t == OUT && has[t]) transfer(t, resident[t], true);
      if (t != OUT || !fetchedOutputs.insert(org).second) transfer(t, org, false);
      resident[t] = org;
      has[t] = true;
      ++r.fills[t];
    }
    for (size_t i = s.loops.size(); i-- > 0;) {  // odometer, innermost fastest
      if (++idx[i] < s.loops[i].bound) break;
      idx[i] = 0;
    }
  }
  if (has[OUT]) transfer(OUT, resident[OUT], true);
  for (int t = 0; t < 3; ++t) r.tensors[t] = banks.tensor(t);
  for (int b = 0; b < s.numBanks; ++b) r.banks.push_back(banks.bank(b));
  for (int64_t sl = 0; sl < slices; ++sl) {
    TraceSlice ts{sl * leaves / slices, (sl + 1) * leaves / slices - 1, {}};
    for (int b = 0; b < s.numBanks; ++b) ts.banks.push_back(banks.sliceBank(static_cast<int>(sl), b));
    r.slices.push_back(ts);
  }
  r.iterations = leaves;
  return r;
}

// A random small mapping: each dimension's bound split over levels 0..3 in factors with small primes, random
// loop orders per level, DRAM child levels, layouts, blocks, element and row sizes, banks shared or not.
ConvTraceSpec randomSpec(std::mt19937& rng, bool large) {
  const auto pick = [&](std::vector<int64_t> v) { return v[rng() % v.size()]; };
  for (;;) {
    ConvTraceSpec s;
    std::array<std::array<int64_t, kTraceDims>, 4> f{};
    for (int d = 0; d < kTraceDims; ++d) {
      f[0][d] = pick({1, 1, 2, 3});
      f[1][d] = pick({1, 1, 2});
      f[2][d] = pick({1, 1, 2, 3});
      f[3][d] = large ? pick({1, 2, 4, 8, 16, 32}) : pick({1, 2, 3, 4, 8});
      if (d == N) f[0][d] = f[1][d] = 1;
      s.bounds[d] = f[0][d] * f[1][d] * f[2][d] * f[3][d];
    }
    s.childLevel = {static_cast<int>(rng() % 3), static_cast<int>(rng() % 3), static_cast<int>(rng() % 3)};
    int64_t leaves = 1;
    for (int level = 3; level >= 1; --level) {
      std::vector<int> dims{0, 1, 2, 3, 4, 5, 6};
      std::shuffle(dims.begin(), dims.end(), rng);
      for (int d : dims)
        if (f[level][d] > 1 || rng() % 4 == 0)
          s.loops.push_back({d, f[level][d], level}), leaves *= f[level][d];
    }
    for (int t = 0; t < 3; ++t)
      for (int d = 0; d < kTraceDims; ++d) {
        s.tileExtent[t][d] = 1;
        for (int level = 0; level <= s.childLevel[t]; ++level) s.tileExtent[t][d] *= f[level][d];
      }
    s.strideW = pick({1, 2}), s.strideH = pick({1, 2}), s.dilW = pick({1, 2}), s.dilH = pick({1, 3});
    s.elementBytes = {pick({1, 2}), pick({1, 2, 4}), pick({1, 4})};
    for (auto& l : s.layout) l = rng() % 2 ? TraceLayout::RowAligned : TraceLayout::Sequential;
    const int64_t hIn = s.strideH * (s.bounds[Q] - 1) + s.dilH * (s.bounds[S] - 1) + 1;
    const int64_t wIn = s.strideW * (s.bounds[P] - 1) + s.dilW * (s.bounds[R] - 1) + 1;
    s.blockH = 1 + static_cast<int64_t>(rng() % hIn), s.blockW = 1 + static_cast<int64_t>(rng() % wIn);
    s.rowBytes = pick({4, 8, 16, 32, 64, 128});
    s.numBanks = static_cast<int>(1 + rng() % 3);
    for (auto& b : s.bank) b = static_cast<int>(rng() % s.numBanks);
    s.slices = static_cast<int>(pick({1, 1, 2, 3, 7, 64}));
    int64_t elements = 1;
    for (int64_t b : s.bounds) elements *= b;
    if (large ? leaves <= 50000 && leaves >= 2000 : leaves <= 3000 && elements <= 200000) return s;
  }
}

TEST(RowTraceConv, MatchesElementReferenceOnRandomMappings) {
  std::mt19937 rng(20);
  for (int i = 0; i < 150; ++i) {
    ConvTraceSpec spec = randomSpec(rng, false);
    SCOPED_TRACE("random spec " + std::to_string(i));
    expectSameTrace(plain(spec), Reference(spec).run());
  }
  // The hand-counted nest, under the reference too.
  expectSameTrace(plain(tinyNest()), Reference(tinyNest()).run());
}

TEST(RowTraceConv, PeriodicSkipEqualsPlainWalk) {
  std::mt19937 rng(2020);
  int skipped = 0;
  for (int i = 0; i < 240; ++i) {
    const ConvTraceSpec spec = randomSpec(rng, i % 3 == 0);
    SCOPED_TRACE("random spec " + std::to_string(i));
    const ConvTraceResult fast = traceConv(spec), slow = plain(spec);
    expectSameTrace(fast, slow);
    EXPECT_EQ(slow.skippedIterations, 0);
    skipped += fast.skippedIterations > 0;
    // The bound a caller limits holds for the walk, and is the plain walk's leaves without the skip.
    EXPECT_LE(static_cast<double>(fast.iterations - fast.skippedIterations), traceWalkSteps(spec));
    ConvTraceSpec noSkip = spec;
    noSkip.skipPeriodic = false;
    EXPECT_EQ(traceWalkSteps(noSkip), static_cast<double>(slow.iterations));
  }
  EXPECT_GT(skipped, 60);  // the property is exercised, not vacuous
}

// A nest of 2^30 iterations (1,024 filters over 2^20 channels, one channel per tile, 1-byte elements, 64-byte
// rows) is two loops of period 64: at most 1 + 2 * 64 bodies walked per entry of each, and the bound says so
// before it runs. Every fetch is still counted.
TEST(RowTraceConv, AHugePeriodicNestWalksFewSteps) {
  ConvTraceSpec spec = layer(1, 1, 1, 1, int64_t{1} << 20, 1024);
  spec.rowBytes = 64;
  loop(spec, K, 1024);
  loop(spec, C, int64_t{1} << 20);
  const double steps = traceWalkSteps(spec);
  EXPECT_EQ(steps, 129.0 * 129.0 + 1024.0);  // literal leaves, and the output tiles of skipped filters
  const ConvTraceResult r = traceConv(spec);
  EXPECT_EQ(r.iterations, int64_t{1} << 30);
  EXPECT_LE(static_cast<double>(r.iterations - r.skippedIterations), steps);
  EXPECT_EQ(r.fills[OUT], 1024);
  EXPECT_EQ(r.fills[W], int64_t{1} << 30);
  EXPECT_EQ(r.fills[IN], int64_t{1} << 30);
}

// Realistic mappings (VGG-16 conv1_2, ResNet-18 convs): level 1 keeps every tensor with tiles of 16 channels
// and 14 x 14 (7 x 7) outputs, a level-1 loop over K inside the tile, DRAM loops K, C, Q, P. Fills follow the
// reuse rule (the innermost moving loop and every loop outside it), a sequential input fill reads its
// sliding-window tile, and the skip agrees with the plain walk.
TEST(RowTraceConv, RealLayersFollowTheReuseRule) {
  struct Layer {
    int64_t r, p, c, k, stride, pt;
  };
  for (const Layer& l :
       {Layer{3, 224, 64, 64, 1, 14}, Layer{3, 56, 64, 64, 1, 14}, Layer{1, 28, 64, 128, 2, 14},
        Layer{3, 7, 512, 512, 1, 7}, Layer{7, 112, 3, 64, 2, 14}})
    for (const TraceLayout layout : {TraceLayout::Sequential, TraceLayout::RowAligned}) {
      ConvTraceSpec spec = layer(l.r, l.r, l.p, l.p, l.c, l.k);
      spec.strideW = spec.strideH = l.stride;
      spec.layout = {layout, layout, layout};
      spec.blockH = 8, spec.blockW = 32;
      const int64_t ct = std::min<int64_t>(16, l.c);
      loop(spec, K, l.k / 16);
      loop(spec, C, l.c / ct);
      loop(spec, Q, l.p / l.pt);
      loop(spec, P, l.p / l.pt);
      spec.loops.push_back({K, 2, 1});
      const ConvTraceResult r = traceConv(spec);
      for (int t = 0; t < 3; ++t) {
        int64_t fills = 1;
        bool inner = false;
        for (size_t i = spec.loops.size(); i-- > 0;) {
          const TraceLoop& lp = spec.loops[i];
          inner = inner || (kRelevant[lp.dim][t] && lp.level > spec.childLevel[t] && lp.bound > 1);
          if (inner) fills *= lp.bound;
        }
        EXPECT_EQ(r.fills[t], fills) << "tensor " << t << " P " << l.p;
      }
      const int64_t window = (l.pt - 1) * l.stride + l.r;
      if (layout == TraceLayout::Sequential) {
        EXPECT_EQ(r.tensors[IN].bytesRead, r.fills[IN] * ct * window * window);
      }
      expectSameTrace(r, plain(spec));
    }
}

TEST(RowTraceConv, TimeSlicesSumToTotals) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20; ++i) {
    ConvTraceSpec spec = randomSpec(rng, true);
    spec.slices = 1 + static_cast<int>(rng() % 50);
    const ConvTraceResult r = traceConv(spec);
    EXPECT_LE(static_cast<double>(r.iterations - r.skippedIterations), traceWalkSteps(spec));
    ASSERT_EQ(static_cast<int>(r.slices.size()), spec.slices);
    std::vector<RowStats> sum(spec.numBanks);
    int64_t next = 0;
    for (const TraceSlice& s : r.slices) {
      EXPECT_EQ(s.firstIteration, next);
      EXPECT_GE(s.lastIteration, s.firstIteration);
      next = s.lastIteration + 1;
      for (int b = 0; b < spec.numBanks; ++b) sum[b] += s.banks[b];
    }
    EXPECT_EQ(next, r.iterations);
    EXPECT_EQ(sum, r.banks);
  }
  ConvTraceSpec few = tinyNest();
  few.slices = 100;  // more slices than iterations: one per iteration
  EXPECT_EQ(traceConv(few).slices.size(), 8u);
}

}  // namespace
