// SPDX-License-Identifier: Apache-2.0
// The artifact's command trace as PIMScope programs. Its trace generators name every command by a byte
// address of one HBM3 stack; the address map (dcc-artifact.md, MSB to LSB: channel 4 | pCH 1 | rank 1 |
// bank group 2 | bank 2 | row 14 | column 5 | 32-B offset 5) routes it to a channel's controller, so a bank
// index of 64 or more spills into the next channel and a channel index of 16 or more wraps, as the
// artifact's own addresses alias. Each channel keeps its commands in trace order.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/frontend.h"
#include "sim/program.h"

namespace pim::dcc {

inline constexpr std::uint64_t kColumnBytes = 32;
inline constexpr std::uint64_t kRowBytes = 32 * kColumnBytes;     // 1 KiB
inline constexpr std::uint64_t kBankBytes = 16384 * kRowBytes;    // 16 MiB
inline constexpr std::uint64_t kBankGroupBytes = 4 * kBankBytes;  // 64 MiB
inline constexpr std::uint64_t kChannelBytes = 64 * kBankBytes;   // 1 GiB
inline constexpr int kStackChannels = 16;

/// Byte address of position `offset` in bank `bank` of logical channel `channel` (the artifact's
/// ch * 1 GiB + ba * 16 MiB + offset).
inline std::uint64_t bankAddress(std::int64_t channel, std::int64_t bank, std::uint64_t offset = 0) {
  return static_cast<std::uint64_t>(channel) * kChannelBytes + static_cast<std::uint64_t>(bank) * kBankBytes +
         offset;
}

/// The artifact's commands, by the names its traces give them.
enum class Cmd : std::uint8_t {
  LD,  // host read
  ST,  // host write
  MAC_OP1,
  LD_OP1,
  ADD_OP1,
  RELU,
  WB_RES,
  WB_ACC,
  ACC_RESET,
  WR_GB,
  MAC_AB,
  MV_SB,
  MV_GB,
  SFM,
  BARRIER
};
inline constexpr int kCmdCount = 15;
const char* cmdName(Cmd c);

/// Requests a channel controller of the artifact's Ramulator fork holds per buffer (read, write, PIM):
/// Ramulator 2's ReqBuffer has max_size 32 but enqueue() accepts while size <= max_size, so 33. Its
/// scheduler picks among the queued requests of a buffer (sim::ChannelScheduler::setRequestBuffer), and its
/// frontend stops the trace at a request whose buffer is full.
inline constexpr std::size_t kRequestBuffer = 33;

/// Collects a trace into one command list per physical channel of the stack, in the trace's order, every
/// command at the bank its address names; the simulator's fed channels choose among the buffered ones as
/// the fork's scheduler does (sim/frontend.h).
class TraceSink {
 public:
  TraceSink();
  void setPhase(sim::Phase p) { m_phase = p; }
  /// One command at `address` (ignored for BARRIER: use barrier()).
  void add(Cmd c, std::uint64_t address);
  /// PIM_BARRIER to every channel of the stack, as the artifact emits it.
  void barrier();

  /// Commands of kind `c` over the whole stack, and on physical channel `ch`.
  std::int64_t count(Cmd c) const;
  std::int64_t count(Cmd c, int ch) const { return m_counts[ch][static_cast<int>(c)]; }
  /// The channels' programs (identical channel programs shared).
  sim::Program take();
  /// The order in which the artifact's frontend sends the requests of take()'s programs (complete once
  /// take() has run).
  const sim::FrontendOrder& frontendOrder() const { return m_order; }

 private:
  void append(int ch, const sim::Command& cmd);

  sim::Phase m_phase = sim::Phase::InputRearrangement;
  std::array<sim::ProgramBuilder, kStackChannels> m_channels;
  std::array<std::array<std::int64_t, kCmdCount>, kStackChannels> m_counts{};
  sim::FrontendOrder m_order;
};

}  // namespace pim::dcc
