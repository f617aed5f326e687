// SPDX-License-Identifier: Apache-2.0
// The host's layout of a tensor, burst by burst. A tensor of B bytes is ceil(B / 32) bursts at consecutive
// host addresses; the address mapping spreads consecutive bursts over the channels of the system first, then
// over the banks of a channel, then columns and rows (hbm2-pim.md, "Address mapping"). Each tensor starts on
// a stripe boundary (channel 0, bank 0: an allocator aligns a tensor to one burst of every bank of the
// system), so a host read or write touches exactly the (channel, bank, column) its bytes map to: a 2-byte
// output is one burst in one bank of one channel, and every other bank keeps its state.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/config.h"
#include "sim/program.h"

namespace pim {

/// Bursts of a tensor of `bursts` bursts that land in `channel` of `channels`.
std::int64_t hostBurstsInChannel(std::int64_t bursts, int channels, int channel);
/// Bursts of a channel's share `channelBursts` that land in flat bank `bank` of `banks`.
std::int64_t hostBurstsInBank(std::int64_t channelBursts, int banks, int bank);

/// One channel's host-layout region of several tensors, in address order: tensor i's share starts on a
/// stripe of its own, after the stripes of the tensors before it.
class HostStream {
 public:
  /// `perTensor[i]`: the bursts of tensor i in this channel; the region starts at (row, column 0) of every
  /// bank.
  HostStream(const sim::DeviceConfig& d, std::vector<std::int64_t> perTensor, std::uint32_t row);
  std::int64_t bursts() const { return m_total; }
  /// Emits bursts [first, first + count) of the region in address order (bank by bank, stripe by stripe).
  void emit(sim::ProgramBuilder& out, sim::Op op, std::int64_t first, std::int64_t count) const;

 private:
  void emitTensor(sim::ProgramBuilder& out, sim::Op op, std::int64_t stripeBase, std::int64_t first,
                  std::int64_t count) const;
  const sim::DeviceConfig& m_d;
  std::vector<std::int64_t> m_perTensor, m_stripeBase;
  std::uint32_t m_row;
  std::int64_t m_total = 0;
};

}  // namespace pim
