// SPDX-License-Identifier: Apache-2.0
#pragma once
// DRAM row-activation trace of one conv layer's tile fetches (docs/convmap.md "DRAM addresses and row
// activations", `pimopt` 8). The analytical model in engine/convmap counts activations with closed forms;
// this walks the same loop nest tile by tile and address run by address run, so it can judge those formulas.
// Two layers: OpenRowBanks (banks with one open row each, fed address runs) and traceConv (the conv walk).
#include <array>
#include <cstdint>
#include <vector>

namespace pim::sim {

// Activations, row hits and bytes moved; per bank, per tensor or per time slice.
struct RowStats {
  int64_t activations = 0;
  int64_t rowHits = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;

  RowStats& operator+=(const RowStats& o);
  RowStats operator-(const RowStats& o) const;
  bool operator==(const RowStats&) const = default;
};

// Banks with one open row each (initially none). An access run touches the rows it covers in ascending order;
// per row visited it counts an activation when the bank's open row differs and a row hit otherwise, then that
// row is open. Statistics are kept per bank, per tensor and per (time slice, bank).
class OpenRowBanks {
 public:
  OpenRowBanks(int numBanks, int64_t rowBytes, int numTensors = 3, int numSlices = 1);

  // Throws std::invalid_argument on a bank, tensor or size out of range.
  void access(int bank, int64_t address, int64_t bytes, int tensor, bool isWrite);
  // Later accesses count in this time slice (0-based, < numSlices).
  void setSlice(int slice);

  int numBanks() const { return static_cast<int>(m_openRow.size()); }
  int numTensors() const { return static_cast<int>(m_tensor.size()); }
  int numSlices() const { return m_numSlices; }
  int64_t rowBytes() const { return m_rowBytes; }
  int slice() const { return m_slice; }
  const RowStats& bank(int b) const { return m_bank.at(b); }
  const RowStats& tensor(int t) const { return m_tensor.at(t); }
  const RowStats& sliceBank(int s, int b) const;
  int64_t openRow(int b) const { return m_openRow.at(b); }    // -1: none open yet
  int openTensor(int b) const { return m_openTensor.at(b); }  // tensor of the last access, -1: none

  // Periodic skip support (traceConv): count `times` repetitions of an access pattern of one tensor whose
  // statistics are `delta`, in the current slice, and move a bank's open row by whole rows.
  void addRepeated(int bank, int tensor, const RowStats& delta, int64_t times);
  void shiftOpenRow(int bank, int64_t rows);

 private:
  int64_t m_rowBytes;
  int m_rowShift = -1;  // log2(row bytes) when a power of two
  int m_numSlices;
  int m_slice = 0;
  std::vector<int64_t> m_openRow;
  std::vector<int> m_openTensor;
  std::vector<RowStats> m_bank;
  std::vector<RowStats> m_tensor;
  std::vector<RowStats> m_sliceBank;  // [slice * numBanks + bank]
};

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

}  // namespace pim::sim
