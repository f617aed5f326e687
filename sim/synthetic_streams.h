// SPDX-License-Identifier: Apache-2.0
// Regular command streams the simulator's tests and benchmarks share, shaped like what the lowering emits.
#pragma once
#include <cstdint>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::sim {

/// AttAcc's reduction of a long GEMV output: `macs` all-bank MACs over consecutive columns, then `moves`
/// iterations of one MVSB per bank group (buffer moves only: the column frontier stands still), then, when
/// `macsAfter`, as many MACs again in other rows; the same program on `channels` channels.
inline Program bufferMoveLoop(const DeviceConfig& c, int64_t macs, int64_t moves, bool macsAfter,
                              int channels) {
  ProgramBuilder b;
  Command mac;
  mac.op = Op::MACAB;
  mac.row = 100;
  mac.colStep = 1;
  auto macStream = [&] {
    b.beginLoop(macs);
    b.add(mac);
    b.endLoop();
  };
  macStream();
  b.beginLoop(moves);
  for (int g = 0; g < c.bankGroups; ++g) {
    Command mv;
    mv.op = Op::MVSB;
    mv.bg = static_cast<uint8_t>(g);
    b.add(mv);
  }
  b.endLoop();
  mac.row = 300;
  if (macsAfter) macStream();
  return Program::replicated(b.take(), channels);
}

}  // namespace pim::sim
