// SPDX-License-Identifier: Apache-2.0
#include "sim/open_row_banks.h"

#include <bit>
#include <stdexcept>
#include <string>

namespace pim::sim {

RowStats& RowStats::operator+=(const RowStats& o) {
  activations += o.activations;
  rowHits += o.rowHits;
  bytesRead += o.bytesRead;
  bytesWritten += o.bytesWritten;
  return *this;
}

RowStats RowStats::operator-(const RowStats& o) const {
  return {activations - o.activations, rowHits - o.rowHits, bytesRead - o.bytesRead,
          bytesWritten - o.bytesWritten};
}

OpenRowBanks::OpenRowBanks(int numBanks, int64_t rowBytes, int numTensors, int numSlices)
    : m_rowBytes(rowBytes), m_numSlices(numSlices) {
  if (numBanks < 1 || rowBytes < 1 || numTensors < 1 || numSlices < 1)
    throw std::invalid_argument("OpenRowBanks: banks, row bytes, tensors and slices must be >= 1");
  m_openRow.assign(numBanks, -1);
  m_openTensor.assign(numBanks, -1);
  m_bank.resize(numBanks);
  m_tensor.resize(numTensors);
  m_sliceBank.resize(static_cast<size_t>(numSlices) * numBanks);
  if ((rowBytes & (rowBytes - 1)) == 0) m_rowShift = std::countr_zero(static_cast<uint64_t>(rowBytes));
}

namespace {
[[noreturn, gnu::cold, gnu::noinline]] void badAccess(int bank, int tensor, int64_t address, int64_t bytes) {
  throw std::invalid_argument("OpenRowBanks::access: bank " + std::to_string(bank) + ", tensor " +
                              std::to_string(tensor) + ", address " + std::to_string(address) + ", bytes " +
                              std::to_string(bytes) + " out of range");
}
}  // namespace

void OpenRowBanks::access(int bank, int64_t address, int64_t bytes, int tensor, bool isWrite) {
  if (bank < 0 || bank >= numBanks() || tensor < 0 || tensor >= numTensors() || address < 0 || bytes < 1)
    badAccess(bank, tensor, address, bytes);
  // Rows are usually a power of two: a shift instead of two divisions on the hot path.
  const int64_t end = address + bytes - 1;
  const int64_t first = m_rowShift >= 0 ? address >> m_rowShift : address / m_rowBytes;
  const int64_t last = m_rowShift >= 0 ? end >> m_rowShift : end / m_rowBytes;
  const bool hit = m_openRow[bank] == first;
  RowStats d;
  d.activations = (hit ? 0 : 1) + (last - first);  // every further row of the run differs from the one before
  d.rowHits = hit ? 1 : 0;
  (isWrite ? d.bytesWritten : d.bytesRead) = bytes;
  m_openRow[bank] = last;
  m_openTensor[bank] = tensor;
  m_bank[bank] += d;
  m_tensor[tensor] += d;
  m_sliceBank[static_cast<size_t>(m_slice) * m_openRow.size() + bank] += d;
}

void OpenRowBanks::setSlice(int slice) {
  if (slice < 0 || slice >= m_numSlices)
    throw std::invalid_argument("OpenRowBanks::setSlice: slice " + std::to_string(slice) + " out of range");
  m_slice = slice;
}

const RowStats& OpenRowBanks::sliceBank(int s, int b) const {
  if (s < 0 || s >= m_numSlices || b < 0 || b >= numBanks())
    throw std::invalid_argument("OpenRowBanks::sliceBank: index out of range");
  return m_sliceBank[static_cast<size_t>(s) * m_openRow.size() + b];
}

void OpenRowBanks::addRepeated(int bank, int tensor, const RowStats& delta, int64_t times) {
  const RowStats d{delta.activations * times, delta.rowHits * times, delta.bytesRead * times,
                   delta.bytesWritten * times};
  m_bank.at(bank) += d;
  m_tensor.at(tensor) += d;
  m_sliceBank[static_cast<size_t>(m_slice) * m_openRow.size() + bank] += d;
}

void OpenRowBanks::shiftOpenRow(int bank, int64_t rows) {
  if (m_openRow.at(bank) >= 0) m_openRow[bank] += rows;
}

}  // namespace pim::sim
