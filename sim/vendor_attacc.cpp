// SPDX-License-Identifier: Apache-2.0
#include "sim/vendor_attacc.h"

#include <algorithm>

namespace pim::sim {

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct AttaccEmitter {
  const DeviceConfig& cfg;
  ProgramBuilder b;
  uint32_t nextRow = 0;
  int bufIdx = 0;
  explicit AttaccEmitter(const DeviceConfig& c) : cfg(c) {}
  // Buffer moves go to the per-bank-group buffers; consecutive ones rotate over pseudo-channel, rank and bank
  // group so that they are limited by the column-slot rules, not by one bank group's tCCD_L.
  void buf(Op op, int n) {
    for (int i = 0; i < n; ++i, ++bufIdx) {
      Command c;
      c.op = op;
      c.pch = 0;
      c.rank = 0;
      c.bg = uint8_t(bufIdx % cfg.bankGroups);
      b.add(c);
    }
  }
  // `macs` MACABs over consecutive columns; a new row every `columns` MACABs (the controller inserts
  // PREA/ACTAB); `mvsbEvery` MACABs are followed by `mvsb` MVSB.
  void macStream(int64_t macs, int64_t mvsbEvery, int mvsb) {
    for (int64_t i = 0; i < macs; ++i) {
      Command c;
      c.op = Op::MACAB;
      c.row = nextRow + uint32_t(i / cfg.columns);
      c.col = uint32_t(i % cfg.columns);
      b.add(c);
      if (mvsbEvery > 0 && (i + 1) % mvsbEvery == 0) {
        b.barrier();
        buf(Op::MVSB, mvsb);
      }
    }
    nextRow += uint32_t(ceilDiv(macs, cfg.columns));
    b.barrier();
  }
  void score(int64_t L) {
    buf(Op::WRGB, 8);  // the query into the GEMV buffers
    b.barrier();
    macStream(2 * ceilDiv(L, 16), 32, 8);  // 8 MVSB after every 16 token groups (= 32 MACAB)
  }
  void softmax() {
    buf(Op::SFM, 1);
    b.barrier();
  }
  void context(int64_t L, int64_t d) {
    buf(Op::MVGB, int(8 * ceilDiv(L, 256)));
    b.barrier();
    // The MACAB stream computes the outputs 64 at a time: 8 MVSB drain each 64-output group as soon as its
    // MACABs are done (so all but the last group's MVSBs overlap the following row switches).
    const int64_t macs = 2 * ceilDiv(L, 16);
    const int64_t groups = ceilDiv(d, 64);
    macStream(macs, ceilDiv(macs, groups), 8);
  }
};

ChannelProgram attentionChannel(const DeviceConfig& cfg, int64_t headsHere, int64_t L, int64_t d) {
  AttaccEmitter e(cfg);
  if (headsHere <= 0) return e.b.take();
  // Software pipelining: head i's score runs before head i-1's softmax and context, so the score of one head
  // overlaps the previous head's softmax.
  e.score(L);
  for (int64_t h = 1; h < headsHere; ++h) {
    e.score(L);
    e.softmax();
    e.context(L, d);
  }
  e.softmax();
  e.context(L, d);
  return e.b.take();
}
}  // namespace

Program attaccDecodeAttention(const DeviceConfig& cfg, int64_t batch, int64_t heads, int64_t len,
                              int64_t headDim) {
  const int64_t perStack = ceilDiv(batch * heads, kAttaccStacks);
  Program p;
  p.channelMap.resize(kAttaccChannels);
  // Channel c gets ceil-or-floor(perStack/16) heads: the last iteration uses perStack mod 16 channels.
  const int64_t full = perStack / kAttaccChannels, rem = perStack % kAttaccChannels;
  ChannelProgram more = attentionChannel(cfg, full + 1, len, headDim);
  ChannelProgram base = attentionChannel(cfg, full, len, headDim);
  p.programs = {std::move(more), std::move(base)};
  for (int c = 0; c < kAttaccChannels; ++c) p.channelMap[c] = c < rem ? 0 : 1;
  return p;
}

Program attaccGemv(const DeviceConfig& cfg, int64_t batchHeads, int64_t rows, int64_t cols) {
  // Vendor tiling: [(16,1,ceil(BH/16)), (1,4,ceil(cols/4)), (1,16,ceil(rows/16))]. Per channel and head:
  // one WRGB per bank column of the input, MACABs over the per-core tile, MVSB to drain outputs.
  const int64_t perStack = ceilDiv(batchHeads, kAttaccStacks);
  const int64_t full = perStack / kAttaccChannels, rem = perStack % kAttaccChannels;
  auto chan = [&](int64_t n) {
    AttaccEmitter e(cfg);
    for (int64_t h = 0; h < n; ++h) {
      // Per head: the input vector into the GEMV buffers (16 values per WRGB), then the MACAB stream over the
      // per-core tile ceil(rows/16) x ceil(cols/4) (2 columns per 16 rows for cols = 128), 8 MVSB after every
      // 16 row groups -- the same command pattern as the attention score phase.
      e.buf(Op::WRGB, int(ceilDiv(cols, 16)));
      e.b.barrier();
      const int64_t s0 = ceilDiv(rows, 16), s1 = ceilDiv(cols, 4);
      e.macStream(s0 * ceilDiv(s1, 16), 16 * ceilDiv(s1, 16), 8);
    }
    return e.b.take();
  };
  Program p;
  p.programs = {chan(full + 1), chan(full)};
  p.channelMap.resize(kAttaccChannels);
  for (int c = 0; c < kAttaccChannels; ++c) p.channelMap[c] = c < rem ? 0 : 1;
  return p;
}

}  // namespace pim::sim
