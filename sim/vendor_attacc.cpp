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
  // One buffer move to (rank, bank group, bank) of pseudo-channel 0.
  void move(Op op, int rank, int bg, int bank) {
    Command c;
    c.op = op;
    c.rank = uint8_t(rank);
    c.bg = uint8_t(bg);
    c.bank = uint8_t(bank);
    b.add(c);
  }
  // Reserves the rows a stream of `macs` MACABs over consecutive columns covers; returns the first.
  uint32_t takeRows(int64_t macs) {
    const uint32_t first = nextRow;
    nextRow += uint32_t(ceilDiv(macs, cfg.columns));
    return first;
  }
  // MACABs number [from, to) of a stream starting at `row`: consecutive columns, a new row every `columns`
  // (the controller inserts PREA/ACTAB).
  void macs(uint32_t row, int64_t from, int64_t to) {
    for (int64_t i = from; i < to; ++i) {
      Command c;
      c.op = Op::MACAB;
      c.row = row + uint32_t(i / cfg.columns);
      c.col = uint32_t(i % cfg.columns);
      b.add(c);
    }
  }
  // `n` MACABs over fresh rows; `mvsbEvery` MACABs are followed by `mvsb` MVSB.
  void macStream(int64_t n, int64_t mvsbEvery, int mvsb) {
    const uint32_t row = takeRows(n);
    for (int64_t i = 0; i < n; ++i) {
      macs(row, i, i + 1);
      if (mvsbEvery > 0 && (i + 1) % mvsbEvery == 0) {
        b.barrier();
        buf(Op::MVSB, mvsb);
      }
    }
    b.barrier();
  }
};

// Decode attention of one channel (attacc.md "Vendor data layout"), as AttAcc's trace generator issues it.
// Per head: the query into the GEMV buffers (WRGB), the score MACAB stream over K with 8 MVSB after every 16
// token groups, one SFM, the softmax buffer back into the GEMV buffers (MVGB), and the context MACAB stream
// over V in 64-output groups with 8 MVSB after each. A step's MVSB follow the next step's MACABs in the same
// barrier group, so the controller issues them alongside (DeviceConfig::macOwnDataPath). Iterations come in
// pairs (software pipelining, attacc.md): the second head's WRGB run alongside the first head's score, the
// first head's SFM and MVGB alongside the second head's score, the second head's SFM and MVGB alongside the
// first head's context; an odd last iteration runs alone. A channel without a head in the remainder iteration
// runs that pair with the first head only.
struct AttentionHead {
  uint32_t keyRow = 0, valueRow = 0;  // first bank row of this head's K and V tiles
};

class AttentionChannel {
 public:
  AttentionChannel(const DeviceConfig& cfg, int64_t len, int64_t headDim)
      : m_e(cfg),
        m_tokenGroups(ceilDiv(len, 16)),
        m_dimGroups(ceilDiv(headDim, 64)),
        m_chunks(ceilDiv(m_tokenGroups, 16)) {}

  /// `iterations` head iterations of the stack; the channel has a head in the last one or not.
  ChannelProgram emit(int64_t iterations, bool inLast) {
    const int64_t heads = inLast ? iterations : iterations - 1;
    std::vector<AttentionHead> h(size_t(std::max<int64_t>(heads, 0)));
    for (auto& head : h) {
      head.keyRow = m_e.takeRows(scoreMacs());
      head.valueRow = m_e.takeRows(m_tokenGroups * m_dimGroups);
    }
    int64_t i = 0;
    for (; i + 1 < iterations; i += 2)
      pair(h[size_t(i)], i + 1 < heads ? &h[size_t(i + 1)] : nullptr, i == 0);
    if (i < heads) single(h[size_t(i)]);
    return m_e.b.take();
  }

 private:
  int64_t scoreMacs() const { return m_tokenGroups * m_dimGroups; }
  int64_t wrgbCount() const { return 4 * m_dimGroups; }  // the query over 4 banks x 16 lanes per dim group
  int64_t mvgbCount() const { return 8 * m_chunks; }     // 2 ranks x 4 bank groups per 256 tokens

  // Buffer-move targets of the vendor layout: the query goes to the 4 banks of bank group 0; score outputs
  // drain per (bank group, rank), context outputs per (bank, rank) of bank group 0; softmax results return
  // per (rank, bank group).
  void wrgb(int64_t n) {
    for (int64_t k = 0; k < n; ++k) m_e.move(Op::WRGB, 0, 0, int(k / m_dimGroups) % 4);
  }
  void scoreDrain() {
    for (int k = 0; k < 8; ++k) m_e.move(Op::MVSB, k % 2, k / 2, 0);
  }
  void contextDrain() {
    for (int k = 0; k < 8; ++k) m_e.move(Op::MVSB, k % 2, 0, k / 2);
  }
  void mvgb(int64_t n) {
    for (int64_t k = 0; k < n; ++k) m_e.move(Op::MVGB, int(k / 4) % 2, int(k % 4), 0);
  }
  void sfm() { m_e.move(Op::SFM, 0, 0, 0); }

  void scoreChunk(const AttentionHead& h, int64_t j) {
    const int64_t per = 16 * m_dimGroups;
    m_e.macs(h.keyRow, j * per, std::min(scoreMacs(), (j + 1) * per));
  }
  void contextGroup(const AttentionHead& h, int64_t g) {
    m_e.macs(h.valueRow, g * m_tokenGroups, (g + 1) * m_tokenGroups);
  }
  // The size of the j-th of `parts` even slices of `total`.
  static int64_t slice(int64_t total, int64_t j, int64_t parts) {
    return ceilDiv((j + 1) * total, parts) - ceilDiv(j * total, parts);
  }
  // `steps` MACAB steps, each followed by the previous step's drain and `alongside(step)`, a barrier between
  // steps; alongside(steps) runs after the last drain.
  template <class Step, class Drain, class Alongside>
  void stream(int64_t steps, Step step, Drain drain, Alongside alongside) {
    for (int64_t j = 0; j <= steps; ++j) {
      if (j < steps) step(j);
      if (j > 0) drain();
      alongside(j);
      if (j < steps) m_e.b.barrier();
    }
  }
  // Head `softmaxed`'s SFM at the first step, its MVGB over the second half of `steps`.
  void softmaxAlongside(int64_t j, int64_t steps) {
    if (j == 0) sfm();
    if (j >= steps / 2 && j < steps) mvgb(slice(mvgbCount(), j - steps / 2, steps - steps / 2));
  }
  void pair(const AttentionHead& h0, const AttentionHead* h1, bool first) {
    const int64_t n = m_chunks, g = m_dimGroups;
    auto score = [&](const AttentionHead& h) { return [&](int64_t j) { scoreChunk(h, j); }; };
    auto context = [&](const AttentionHead& h) { return [&](int64_t k) { contextGroup(h, k); }; };
    auto drainS = [&] { scoreDrain(); };
    auto drainC = [&] { contextDrain(); };
    wrgb(wrgbCount());
    if (first) m_e.macs(h0.keyRow, 0, 1);  // the generator opens the first head's row with one extra MACAB
    m_e.b.barrier();
    stream(n, score(h0), drainS, [&](int64_t j) {
      if (h1 && j < n) wrgb(slice(wrgbCount(), j, n));
    });
    if (h1)
      stream(n, score(*h1), drainS, [&](int64_t j) { softmaxAlongside(j, n); });
    else
      for (int64_t j = 0; j < n; ++j) softmaxAlongside(j, n), m_e.b.barrier();
    stream(g, context(h0), drainC, [&](int64_t k) {
      if (h1) softmaxAlongside(k, g);
    });
    // AttAcc's generator issues the first head's context commands again in the second head's place, so the
    // second head's V is never read: its simulator times that, and so do we.
    stream(g, context(h0), drainC, [](int64_t) {});
  }
  void single(const AttentionHead& h) {
    wrgb(wrgbCount());
    m_e.b.barrier();
    stream(
        m_chunks, [&](int64_t j) { scoreChunk(h, j); }, [&] { scoreDrain(); },
        [&](int64_t j) {
          if (j < m_chunks) return;
          sfm();
          mvgb(mvgbCount());
          m_e.b.barrier();
        });
    stream(
        m_dimGroups, [&](int64_t k) { contextGroup(h, k); }, [&] { contextDrain(); }, [](int64_t) {});
  }

  AttaccEmitter m_e;
  int64_t m_tokenGroups, m_dimGroups, m_chunks;
};
}  // namespace

Program attaccDecodeAttention(const DeviceConfig& cfg, int64_t batch, int64_t heads, int64_t len,
                              int64_t headDim) {
  const int64_t perStack = ceilDiv(batch * heads, kAttaccStacks);
  Program p;
  p.channelMap.resize(kAttaccChannels);
  // Channel c gets ceil-or-floor(perStack/16) heads: the last iteration uses perStack mod 16 channels.
  const int64_t rem = perStack % kAttaccChannels;
  const int64_t iterations = ceilDiv(perStack, kAttaccChannels);
  ChannelProgram more = AttentionChannel(cfg, len, headDim).emit(iterations, true);
  ChannelProgram base = AttentionChannel(cfg, len, headDim).emit(iterations, rem == 0);
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
