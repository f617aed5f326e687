// SPDX-License-Identifier: Apache-2.0
#pragma once
// DRAM banks with one open row each, fed address runs: the bank model under the conv row trace (row_trace.h),
// which walks a loop nest and feeds it.
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

}  // namespace pim::sim
