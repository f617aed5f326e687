// SPDX-License-Identifier: Apache-2.0
#pragma once
// DRAM row-activation trace of one conv layer's tile fetches (docs/convmap.md "DRAM addresses and row
// activations", `pimopt` 8). The analytical model in engine/convmap counts activations with closed forms;
// this walks the same loop nest tile by tile and address run by address run, so it can judge those formulas.
// The banks are OpenRowBanks (open_row_banks.h); this is the conv walk that feeds them.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/open_row_banks.h"

namespace pim::sim {

// Dimension indices of the conv (docs/convmap.md ConvDim order) and tensor indices.
enum TraceDim : int { kTraceR = 0, kTraceS, kTraceP, kTraceQ, kTraceC, kTraceK, kTraceN, kTraceDims };
enum TraceTensor : int { kTraceInput = 0, kTraceWeight, kTraceOutput, kTraceTensors };

enum class TraceLayout { Sequential, RowAligned };

// A temporal loop of the nest above level 0: dimension, bound, and the hierarchy level it belongs to (>= 1).
struct TraceLoop {
  int dim = kTraceR;
  int64_t bound = 1;
  int level = 1;
};

struct ConvTraceSpec {
  // The layer: bounds in R, S, P, Q, C, K, N order; the input is the padded input (W_in = strideW*(P-1) +
  // dilW*(R-1) + 1, H_in likewise with S, Q); element bytes per tensor (input, weight, output).
  std::array<int64_t, kTraceDims> bounds{1, 1, 1, 1, 1, 1, 1};
  int64_t strideW = 1, strideH = 1, dilW = 1, dilH = 1;
  std::array<int64_t, kTraceTensors> elementBytes{1, 1, 1};

  // The temporal loops of levels >= 1 up to DRAM, outermost first (levels non-increasing). Loops of bound 1
  // may be listed; they change nothing.
  std::vector<TraceLoop> loops;
  // Per tensor: its DRAM child level c_t (the highest level below DRAM keeping it) and its tile there:
  // tileExtent[t][dim] = product of dim's factors at levels 0..c_t (all slots). Loops at levels > c_t move
  // the tile; loops at levels <= c_t run inside it. Only dimensions relevant to t are read.
  std::array<int, kTraceTensors> childLevel{0, 0, 0};
  std::array<std::array<int64_t, kTraceDims>, kTraceTensors> tileExtent{
      {{1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1}}};

  // DRAM placement: layout per tensor, the row-aligned input's block (elements), bank per tensor (tensors
  // sharing a bank are placed one after the other, each starting on a row boundary), banks, row bytes.
  std::array<TraceLayout, kTraceTensors> layout{TraceLayout::Sequential, TraceLayout::Sequential,
                                                TraceLayout::Sequential};
  int64_t blockH = 1, blockW = 1;
  std::array<int, kTraceTensors> bank{0, 1, 2};
  int numBanks = 3;
  int64_t rowBytes = 1024;

  // Time slices: with T iterations of the nest (flat index, innermost fastest) and S = min(slices, T), slice
  // s holds iterations floor(s*T/S) .. floor((s+1)*T/S) - 1; the final write-back counts in the last slice.
  int slices = 1;
  // Extrapolate provably periodic loop iterations instead of walking them (exact; the proof is in
  // row_trace.cpp). A skip never crosses a slice boundary, so many slices leave fewer iterations to skip.
  bool skipPeriodic = true;
};

struct TraceSlice {
  int64_t firstIteration = 0;  // flat iteration indices of the traced nest, inclusive
  int64_t lastIteration = 0;
  std::vector<RowStats> banks;
};

struct ConvTraceResult {
  std::array<RowStats, kTraceTensors> tensors;
  // Tile fetches from DRAM per tensor (an output's first fill, which reads nothing, included).
  std::array<int64_t, kTraceTensors> fills{0, 0, 0};
  std::vector<RowStats> banks;
  std::vector<TraceSlice> slices;
  int64_t iterations = 0;         // leaves of the traced nest
  int64_t skippedIterations = 0;  // of which extrapolated by the periodic skip
};

// Walks the nest: at every iteration, for input, weight, output in turn, a tile whose origin differs from the
// resident one is fetched (an output first writes the resident tile back, and reads the new one only if it
// was fetched before); at the end the resident output is written back. A tile moves in ascending address
// order as maximal contiguous runs (one OpenRowBanks::access each), so row hits count runs, not elements.
// Throws std::invalid_argument on an inconsistent spec.
ConvTraceResult traceConv(const ConvTraceSpec& spec);

// An upper bound on the steps traceConv takes for `spec`, in time proportional to the loops: the leaves it
// walks literally (iterations - skippedIterations) plus the output tiles it marks for skipped bodies. What a
// caller limits to bound a trace's time: with the periodic skip a nest of 10^12 iterations can take 10^4
// steps. Throws like traceConv.
double traceWalkSteps(const ConvTraceSpec& spec);

}  // namespace pim::sim
