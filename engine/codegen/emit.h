// SPDX-License-Identifier: Apache-2.0
// Command-stream building blocks shared by the code generators. Streams are emitted as repeated blocks with a
// column step, so a program stays a handful of commands however long the stream (the simulator carries a
// column past the end of a row into the next row and fast-forwards periodic iterations).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::emit {

/// Flat bank id of a simulated channel: ((pch * ranks + rank) * bankGroups + bg) * banksPerBankGroup + bank.
sim::Command bankCommand(const sim::DeviceConfig& d, sim::Op op, int flatBank);

/// `n` commands `op` on the banks of `mask` (a broadcast), at consecutive columns from (row, col 0).
void broadcastStream(sim::ProgramBuilder& b, sim::Op op, std::uint32_t row, std::int64_t n,
                     std::uint64_t mask, std::uint8_t flags = 0);

/// `perBank` commands `op` in each bank of `banks`, interleaved bank by bank (bank-level parallelism), at
/// consecutive columns starting `offset` columns after (row, col 0).
void interleavedStream(sim::ProgramBuilder& b, const sim::DeviceConfig& d, sim::Op op,
                       const std::vector<int>& banks, std::uint32_t row, std::int64_t perBank,
                       std::int64_t offset = 0, std::uint8_t flags = 0);

/// `n` channel-level buffer commands (WRGB, MVSB, MVGB, SFM, PIM_RESET) rotating over bank groups.
void bufferCommands(sim::ProgramBuilder& b, const sim::DeviceConfig& d, sim::Op op, std::int64_t n);

/// Mask of the given flat banks.
std::uint64_t maskOf(const std::vector<int>& banks);

}  // namespace pim::emit
