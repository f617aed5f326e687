// SPDX-License-Identifier: Apache-2.0
#include "sim/scheduler.h"

#include <algorithm>
#include <bit>

namespace pim::sim {

namespace {
template <typename F>
inline void forBits(uint64_t m, F&& f) {
  while (m) {
    f(std::countr_zero(m));
    m &= m - 1;
  }
}
bool isAllBankOp(Op op) {
  return op == Op::ACTAB || op == Op::MACAB || op == Op::PIM_LD || op == Op::PIM_MAC || op == Op::PIM_ADD ||
         op == Op::PIM_MUL || op == Op::PIM_WB;
}
}  // namespace

ChannelScheduler::ChannelScheduler(const DeviceConfig& cfg, TraceWindow tw, int traceChannel,
                                   bool fastForward)
    : m_cfg(cfg), m_fastForward(fastForward && !tw.enabled), m_tw(tw), m_traceChannel(traceChannel) {
  m_banksPerRank = cfg.banksPerRank();
  m_banksPerPch = cfg.banksPerPseudoChannel();
  m_nBanks = cfg.banksPerChannel();
  m_allMask = m_nBanks >= 64 ? ~0ULL : ((1ULL << m_nBanks) - 1);
  m_banks.resize(static_cast<size_t>(m_nBanks));
  m_ranks.resize(static_cast<size_t>(cfg.pseudoChannels * cfg.ranks));
  m_pchs.resize(static_cast<size_t>(cfg.pseudoChannels));
  phaseEnd.fill(-1);
  if (cfg.refresh) {
    const uint64_t rankMask = m_banksPerRank >= 64 ? ~0ULL : ((1ULL << m_banksPerRank) - 1);
    for (int p = 0; p < cfg.pseudoChannels; ++p) {
      if (cfg.refreshScope == Scope::PseudoChannel) {
        const uint64_t pm = (m_banksPerPch >= 64 ? ~0ULL : ((1ULL << m_banksPerPch) - 1))
                            << (p * m_banksPerPch);
        m_refresh.push_back({cfg.tREFI, pm});
      } else {
        for (int r = 0; r < cfg.ranks; ++r) {
          // DRAMSim2 staggers the ranks of a channel: rank r first refreshes at tREFI/ranks*(r+1).
          const int64_t first = cfg.staggerRefresh ? int64_t(cfg.tREFI) / cfg.ranks * (r + 1) : cfg.tREFI;
          m_refresh.push_back({first, rankMask << ((p * cfg.ranks + r) * m_banksPerRank)});
        }
      }
    }
  }
}

uint64_t ChannelScheduler::maskOf(const Command& c) const {
  if (c.bankMask) return c.bankMask & m_allMask;
  if ((c.flags & kFlagAllBanks) || isAllBankOp(c.op)) return m_allMask;
  const int rankBase = (c.pch * m_cfg.ranks + c.rank) * m_banksPerRank;
  if (c.op == Op::PREA) {
    const uint64_t rm = m_banksPerRank >= 64 ? ~0ULL : ((1ULL << m_banksPerRank) - 1);
    return rm << rankBase;
  }
  return 1ULL << (rankBase + c.bg * m_cfg.banksPerGroup + c.bank);
}

int64_t ChannelScheduler::rowSlot(int64_t t, bool act) const {
  // ACTs stay in program order among themselves (tRRD/tFAW bookkeeping is monotonic); a PRE depends only on
  // its own bank, so the controller may issue it into any earlier free slot. Row commands run ahead of the
  // column stream by at most kSlotWindow cycles (the controller's look-ahead / queue depth).
  t = std::max({t, m_floor, m_lastCol - kSlotWindow});
  if (act) t = std::max(t, m_lastAct + 1);
  if (!m_cfg.separateRowColumnBus)
    while (m_used.count(t)) ++t;
  return t;
}

int64_t ChannelScheduler::colSlot(int64_t t) const {
  t = std::max({t, m_floor, m_colFloor, m_lastCol + 1});
  if (!m_cfg.separateRowColumnBus)
    while (m_used.count(t)) ++t;
  return t;
}

void ChannelScheduler::take(int64_t t, bool row, bool act) {
  if (row) {
    if (act) m_lastAct = std::max(m_lastAct, t);
    ++rowCommands;
  } else {
    m_lastCol = t;
    ++columnCommands;
  }
  if (!m_cfg.separateRowColumnBus) {
    m_used.insert(t);
    // Nothing can issue before both in-order frontiers any more: drop the older slots.
    const int64_t frontier = std::min(m_lastAct, m_lastCol) - kSlotWindow;
    m_used.erase(m_used.begin(), m_used.lower_bound(frontier));
  }
}

void ChannelScheduler::record(int bank, Op op, int64_t t, int64_t dur) {
  if (!m_tw.enabled || t < m_tw.begin || t > m_tw.end || m_trace.size() >= m_tw.maxEvents) return;
  m_trace.push_back({m_traceChannel, bank, op, t, dur});
}

// ---- row commands ----
int64_t ChannelScheduler::planAct(uint64_t mask, bool allBank) const {
  int64_t t = 0;
  uint32_t ranksTouched = 0;
  std::array<uint32_t, 16> bgTouched{};
  forBits(mask, [&](int b) {
    t = std::max(t, m_banks[b].actReady);
    ranksTouched |= 1u << rankOf(b);
    bgTouched[rankOf(b)] |= 1u << bgOf(b);
  });
  if (!allBank) {  // ACTAB is exempt from tRRD/tFAW (attacc.md)
    forBits(ranksTouched, [&](int r) {
      const RankState& rs = m_ranks[r];
      if (m_cfg.rrdFawScope == Scope::Rank) {
        t = std::max(t, rs.lastAct + m_cfg.tRRDS);
        if (m_cfg.tFAW > 0) t = std::max(t, rs.faw[rs.fawPos] + m_cfg.tFAW);
      } else {
        const PseudoChannelState& ps = m_pchs[r / m_cfg.ranks];
        t = std::max(t, ps.lastAct + m_cfg.tRRDS);
        if (m_cfg.tFAW > 0) t = std::max(t, ps.faw[ps.fawPos] + m_cfg.tFAW);
      }
      forBits(bgTouched[r], [&](int g) { t = std::max(t, rs.lastActBg[g] + m_cfg.tRRDL); });
    });
  }
  return rowSlot(t, true);
}

void ChannelScheduler::commitAct(uint64_t mask, int64_t t, uint32_t row, bool allBank) {
  const DeviceConfig& c = m_cfg;
  uint32_t ranksTouched = 0;
  forBits(mask, [&](int b) {
    BankState& bs = m_banks[b];
    bs.openRow = row;
    bs.openedAt = t;
    ++bs.acts;
    bs.actReady = t + (allBank ? c.pimActToAct : c.tRC);
    bs.preReady = std::max(bs.preReady, t + (allBank ? c.pimActToPre : c.tRAS));
    bs.rdReady = t + (allBank ? c.pimActToMac : c.tRCDRD);
    bs.wrReady = t + (allBank ? c.pimActToMac : c.tRCDWR);
    ranksTouched |= 1u << rankOf(b);
    if (!allBank) m_ranks[rankOf(b)].lastActBg[bgOf(b)] = t;
    record(b, allBank ? Op::ACTAB : Op::ACT, t, allBank ? c.pimActToMac : c.tRCDRD);
  });
  if (!allBank) {
    forBits(ranksTouched, [&](int r) {
      RankState& rs = m_ranks[r];
      rs.lastAct = t;
      rs.faw[rs.fawPos] = t;
      rs.fawPos = (rs.fawPos + 1) & 3;
      PseudoChannelState& ps = m_pchs[r / m_cfg.ranks];
      ps.lastAct = t;
      ps.faw[ps.fawPos] = t;
      ps.fawPos = (ps.fawPos + 1) & 3;
    });
  }
  take(t, true, true);
  complete(t + 1);
}

int64_t ChannelScheduler::planPre(uint64_t mask) const {
  int64_t t = 0;
  forBits(mask, [&](int b) {
    if (m_banks[b].openRow >= 0) t = std::max(t, m_banks[b].preReady);
  });
  return rowSlot(t, false);
}

void ChannelScheduler::commitPre(uint64_t mask, int64_t t, bool allBank, Op op) {
  const int tRP = allBank ? m_cfg.pimPreToAct : m_cfg.tRP;
  forBits(mask, [&](int b) {
    BankState& bs = m_banks[b];
    if (bs.openRow < 0) return;
    bs.busy += t - bs.openedAt;
    bs.openRow = -1;
    ++bs.pres;
    bs.actReady = std::max(bs.actReady, t + tRP);
    record(b, op, t, tRP);
  });
  take(t, true, false);
  complete(t + 1);
}

// ---- refresh ----
bool ChannelScheduler::refreshDue(int64_t t) {
  bool any = false;
  for (RefreshUnit& u : m_refresh) {
    while (u.next <= t) {
      doRefresh(u);
      any = true;
    }
  }
  return any;
}

void ChannelScheduler::doRefresh(RefreshUnit& u) {
  const int64_t deadline = u.next;
  uint64_t open = 0;
  forBits(u.mask, [&](int b) {
    if (m_banks[b].openRow >= 0) open |= 1ULL << b;
  });
  int64_t refAt = deadline;
  if (open) {
    const int64_t tp = std::max(planPre(open), rowSlot(deadline, false));
    commitPre(open, tp, false, Op::PREA);
    refAt = tp + m_cfg.tRP;
  }
  forBits(u.mask, [&](int b) { refAt = std::max(refAt, m_banks[b].actReady); });
  refAt = rowSlot(refAt, false);
  forBits(u.mask, [&](int b) { m_banks[b].actReady = refAt + m_cfg.tRFC; });
  take(refAt, true, false);
  --rowCommands;  // counted separately
  ++refreshes;
  record(std::countr_zero(u.mask), Op::PREA, refAt, m_cfg.tRFC);
  u.next += m_cfg.tREFI;
}

// ---- column commands ----
int64_t ChannelScheduler::planCol(const Command& c, uint64_t mask, bool read) const {
  int64_t t = 0;
  uint32_t ranksTouched = 0, pchTouched = 0;
  std::array<uint32_t, 16> bgTouched{};
  forBits(mask, [&](int b) {
    t = std::max(t, read ? m_banks[b].rdReady : m_banks[b].wrReady);
    ranksTouched |= 1u << rankOf(b);
    pchTouched |= 1u << pchOf(b);
    bgTouched[rankOf(b)] |= 1u << bgOf(b);
  });
  forBits(ranksTouched, [&](int r) {
    const RankState& rs = m_ranks[r];
    t = std::max(t, rs.colReadyS);
    forBits(bgTouched[r], [&](int g) {
      t = std::max(t, rs.colReadyL[g]);
      if (read) t = std::max(t, rs.rdAfterWrL[g]);
    });
  });
  forBits(pchTouched, [&](int p) {
    const PseudoChannelState& ps = m_pchs[p];
    t = std::max(t, ps.busFree);
    t = std::max(t, read ? ps.rdAfterWrS : ps.wrAfterRd);
  });
  if (c.op == Op::MACAB || isAllBankOp(c.op)) t = std::max(t, m_lastMac + m_cfg.pimMacToMac);
  return colSlot(t);
}

void ChannelScheduler::commitCol(const Command& c, uint64_t mask, int64_t t, bool read) {
  const DeviceConfig& cf = m_cfg;
  const bool allBank = isAllBankOp(c.op);
  const bool pimOp = (c.flags & kFlagPim) || allBank;
  const bool host = c.op == Op::HOST_RD || c.op == Op::HOST_WR;
  const int bus = cf.burstCycles();
  uint32_t ranksTouched = 0, pchTouched = 0;
  std::array<uint32_t, 16> bgTouched{};
  const int toPre = read ? (allBank ? cf.pimMacToPre : cf.rdToPre) : cf.wrToPre;
  forBits(mask, [&](int b) {
    BankState& bs = m_banks[b];
    (read ? bs.rds : bs.wrs)++;
    if (pimOp) ++bs.pimOps;
    if (host) ++bs.hostBursts;
    bs.preReady = std::max(bs.preReady, t + toPre);
    ranksTouched |= 1u << rankOf(b);
    pchTouched |= 1u << pchOf(b);
    bgTouched[rankOf(b)] |= 1u << bgOf(b);
    record(b, c.op, t, read ? cf.CL + bus : cf.CWL + bus);
  });
  forBits(ranksTouched, [&](int r) {
    RankState& rs = m_ranks[r];
    rs.colReadyS = t + cf.tCCDS;
    forBits(bgTouched[r], [&](int g) {
      rs.colReadyL[g] = t + cf.tCCDL;
      if (!read) rs.rdAfterWrL[g] = t + cf.wrToRdL;
    });
  });
  forBits(pchTouched, [&](int p) {
    PseudoChannelState& ps = m_pchs[p];
    ps.busFree = t + bus;
    if (read)
      ps.wrAfterRd = std::max(ps.wrAfterRd, t + cf.rdToWr);
    else
      ps.rdAfterWrS = std::max(ps.rdAfterWrS, t + cf.wrToRdS);
  });
  if (allBank) m_lastMac = t;
  take(t, false, false);
  const int64_t done = t + (read ? cf.CL : cf.CWL) + bus;
  complete(done);
  m_maxColCompletion = std::max(m_maxColCompletion, done);
}

void ChannelScheduler::issueColumn(const Command& c, uint64_t mask) {
  const bool read = opClass(c.op) == OpClass::ColRead;
  const bool allBank = isAllBankOp(c.op);
  for (;;) {
    uint64_t needPre = 0, needAct = 0;
    forBits(mask, [&](int b) {
      const BankState& bs = m_banks[b];
      if (bs.openRow < 0)
        needAct |= 1ULL << b;
      else if (bs.openRow != int64_t(c.row)) {
        needPre |= 1ULL << b;
        needAct |= 1ULL << b;
      }
    });
    if (needPre) {  // open-page controller: close the conflicting row first
      const int64_t t = planPre(needPre);
      if (refreshDue(t)) continue;
      commitPre(needPre, t, allBank, allBank ? Op::PREA : Op::PRE);
      continue;
    }
    if (needAct) {
      const int64_t t = planAct(needAct, allBank);
      if (refreshDue(t)) continue;
      commitAct(needAct, t, c.row, allBank);
      continue;
    }
    const int64_t t = planCol(c, mask, read);
    if (refreshDue(t)) continue;
    commitCol(c, mask, t, read);
    return;
  }
}

void ChannelScheduler::issueRow(const Command& c, uint64_t mask) {
  const bool act = opClass(c.op) == OpClass::RowAct;
  const bool allBank = c.op == Op::ACTAB || (c.op == Op::PREA && (c.flags & kFlagAllBanks));
  for (;;) {
    if (act) {
      uint64_t m = 0;  // banks already open at another row are closed first
      forBits(mask, [&](int b) {
        if (m_banks[b].openRow >= 0 && m_banks[b].openRow != int64_t(c.row)) m |= 1ULL << b;
      });
      if (m) {
        const int64_t t = planPre(m);
        if (refreshDue(t)) continue;
        commitPre(m, t, allBank, allBank ? Op::PREA : Op::PRE);
        continue;
      }
      uint64_t closed = 0;
      forBits(mask, [&](int b) {
        if (m_banks[b].openRow < 0) closed |= 1ULL << b;
      });
      if (!closed) return;  // already open: nothing to do
      const int64_t t = planAct(closed, allBank);
      if (refreshDue(t)) continue;
      commitAct(closed, t, c.row, allBank);
      return;
    }
    uint64_t open = 0;
    forBits(mask, [&](int b) {
      if (m_banks[b].openRow >= 0) open |= 1ULL << b;
    });
    if (!open) return;  // precharging closed banks is a no-op
    const int64_t t = planPre(open);
    if (refreshDue(t)) continue;
    commitPre(open, t, allBank, c.op);
    return;
  }
}

void ChannelScheduler::issueBuffer(const Command& c) {
  // Buffer moves need no open row but take a column slot of their pseudo-channel / rank / bank group.
  const DeviceConfig& cf = m_cfg;
  const int r = c.pch * cf.ranks + c.rank;
  for (;;) {
    RankState& rs = m_ranks[r];
    PseudoChannelState& ps = m_pchs[c.pch];
    int64_t t = std::max({rs.colReadyS, rs.colReadyL[c.bg], ps.busFree});
    t = colSlot(t);
    if (refreshDue(t)) continue;
    rs.colReadyS = t + cf.tCCDS;
    rs.colReadyL[c.bg] = t + cf.tCCDL;
    ps.busFree = t + cf.burstCycles();
    take(t, false, false);
    const int b0 = r * m_banksPerRank + c.bg * cf.banksPerGroup + c.bank;
    ++m_banks[b0].bufMoves;
    record(-1, c.op, t, cf.burstCycles());
    complete(t + cf.burstCycles());
    m_maxColCompletion = std::max(m_maxColCompletion, t + int64_t(cf.burstCycles()));
    return;
  }
}

void ChannelScheduler::issue(const Command& c) {
  const int ph = static_cast<int>(c.phase);
  if (ph != m_phase) {  // phase change: full fence
    if (m_phase >= 0) phaseEnd[m_phase] = std::max(phaseEnd[m_phase], m_maxCompletion);
    m_floor = std::max(m_floor, m_maxCompletion);
    m_phase = ph;
  }
  switch (opClass(c.op)) {
    case OpClass::Barrier:
      if (m_cfg.barrierMode == BarrierMode::Drain) m_colFloor = std::max(m_colFloor, m_maxColCompletion);
      return;
    case OpClass::RowAct:
    case OpClass::RowPre:
      issueRow(c, maskOf(c));
      return;
    case OpClass::ColRead:
    case OpClass::ColWrite:
      issueColumn(c, maskOf(c));
      return;
    case OpClass::Buffer:
      issueBuffer(c);
      return;
  }
}

namespace {
// A controller that may reorder independent requests (FR-FCFS over per-bank queues) does so within a window
// that no barrier separates. For a run of single-bank column commands this amounts to interleaving the bank
// groups (the ACT of another bank group is ready tRRD_S after the last one, the same group only after
// tRRD_L), while commands to the same bank keep their order. Broadcast (masked / all-bank) commands are never
// reordered.
std::vector<size_t> issueOrder(const std::vector<Command>& cmds, int bankGroups) {
  std::vector<size_t> order(cmds.size());
  for (size_t i = 0; i < cmds.size(); ++i) order[i] = i;
  auto reorderable = [](const Command& c) {
    const OpClass k = opClass(c.op);
    return (k == OpClass::ColRead || k == OpClass::ColWrite) && c.bankMask == 0 &&
           !(c.flags & kFlagAllBanks) && c.op != Op::MACAB && c.op != Op::PIM_LD && c.op != Op::PIM_MAC &&
           c.op != Op::PIM_ADD && c.op != Op::PIM_MUL && c.op != Op::PIM_WB && c.repeat == 1;
  };
  size_t i = 0;
  while (i < cmds.size()) {
    if (!reorderable(cmds[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < cmds.size() && reorderable(cmds[j]) && cmds[j].phase == cmds[i].phase) ++j;
    if (j - i > 1) {
      std::vector<std::pair<int64_t, size_t>> key;
      std::vector<int64_t> seenInBg(size_t(64 * bankGroups), 0);
      for (size_t k = i; k < j; ++k) {
        const Command& c = cmds[k];
        const size_t g = size_t((c.pch * 8 + c.rank) * bankGroups + c.bg);
        key.push_back({seenInBg[g]++ * 64 * bankGroups + int64_t(g), k});
      }
      std::stable_sort(key.begin(), key.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t k = i; k < j; ++k) order[k] = key[k - i].second;
    }
    i = j;
  }
  return order;
}
}  // namespace

void ChannelScheduler::snapshot(Snapshot& s) const {
  // Every future command issues at or after base - kSlotWindow. "Ready" timestamps older than that, and "last
  // event" timestamps older than that minus the largest spacing added to them (tFAW, tRRD, MACAB spacing,
  // all < 128), can no longer bind, so they are clamped and compare equal.
  constexpr int64_t kFar = kSlotWindow + 128;
  const int64_t base = m_lastCol;
  s.base = base;
  s.rel.clear();
  s.rows.clear();
  s.counters.clear();
  auto t = [&](int64_t v) { s.rel.push_back(std::max(v - base, -kFar)); };
  for (const BankState& b : m_banks) {
    t(b.actReady), t(b.preReady), t(b.rdReady), t(b.wrReady), t(b.openRow >= 0 ? b.openedAt : base - kFar);
    s.rows.push_back(b.openRow);
    for (int64_t c : {b.acts, b.pres, b.rds, b.wrs, b.pimOps, b.busy, b.hostBursts, b.bufMoves})
      s.counters.push_back(c);
  }
  for (const RankState& r : m_ranks) {
    t(r.lastAct), t(r.colReadyS);
    for (int64_t v : r.lastActBg) t(v);
    for (int i = 0; i < 4; ++i) t(r.faw[(r.fawPos + i) & 3]);
    for (int64_t v : r.colReadyL) t(v);
    for (int64_t v : r.rdAfterWrL) t(v);
  }
  for (const PseudoChannelState& p : m_pchs) {
    t(p.busFree), t(p.rdAfterWrS), t(p.wrAfterRd), t(p.lastAct);
    for (int i = 0; i < 4; ++i) t(p.faw[(p.fawPos + i) & 3]);
  }
  t(m_lastAct), t(m_lastMac), t(m_floor), t(m_colFloor), t(m_maxCompletion), t(m_maxColCompletion);
  for (auto it = m_used.lower_bound(base - kFar); it != m_used.end(); ++it) t(*it);
  s.rel.push_back(static_cast<int64_t>(m_used.size()));
  for (int64_t c : {rowCommands, columnCommands, refreshes}) s.counters.push_back(c);
}

void ChannelScheduler::jump(int64_t k, int64_t period, const Snapshot& prev, const Snapshot& cur) {
  const int64_t dt = k * period;
  size_t ci = 0;
  auto cnt = [&](int64_t& v) {
    v += k * (cur.counters[ci] - prev.counters[ci]);
    ++ci;
  };
  for (size_t b = 0; b < m_banks.size(); ++b) {
    BankState& s = m_banks[b];
    s.actReady += dt, s.preReady += dt, s.rdReady += dt, s.wrReady += dt;
    // A row that stayed open through the skipped iterations keeps its opening time (busy-cycle accounting).
    const size_t actsIdx = ci;  // counters of this bank start with acts
    if (cur.counters[actsIdx] != prev.counters[actsIdx]) s.openedAt += dt;
    if (s.openRow >= 0) s.openRow += k * (cur.rows[b] - prev.rows[b]);
    cnt(s.acts), cnt(s.pres), cnt(s.rds), cnt(s.wrs), cnt(s.pimOps), cnt(s.busy), cnt(s.hostBursts),
        cnt(s.bufMoves);
  }
  for (RankState& r : m_ranks) {
    r.lastAct += dt, r.colReadyS += dt;
    for (auto* arr : {&r.lastActBg, &r.colReadyL, &r.rdAfterWrL})
      for (int64_t& v : *arr) v += dt;
    for (int64_t& v : r.faw) v += dt;
  }
  for (PseudoChannelState& p : m_pchs) {
    p.busFree += dt, p.rdAfterWrS += dt, p.wrAfterRd += dt, p.lastAct += dt;
    for (int64_t& v : p.faw) v += dt;
  }
  m_lastAct += dt, m_lastCol += dt, m_lastMac += dt, m_floor += dt, m_colFloor += dt;
  m_maxCompletion += dt, m_maxColCompletion += dt;
  std::set<int64_t> used;
  for (int64_t v : m_used) used.insert(used.end(), v + dt);
  m_used.swap(used);
  cnt(rowCommands), cnt(columnCommands), cnt(refreshes);
  iterationsSkipped += k;
}

namespace {
bool singlePhase(const Block& b) {
  for (const Command& c : b.cmds)
    if (c.phase != b.cmds.front().phase) return false;
  return !b.cmds.empty();
}
}  // namespace

void ChannelScheduler::run(const ChannelProgram& prog) {
  Snapshot prev, cur;
  for (const Block& blk : prog.blocks) {
    const std::vector<size_t> order = issueOrder(blk.cmds, m_cfg.bankGroups);
    const bool ff = m_fastForward && blk.repeat >= 4 && singlePhase(blk);
    bool havePrev = false;
    std::vector<int64_t> lastRowDelta;
    for (int64_t it = 0; it < blk.repeat; ++it) {
      for (size_t oi : order) {
        const Command& c0 = blk.cmds[oi];
        Command c = c0;
        // Address mapping: a column past the end of the row carries into the next row.
        int64_t row = int64_t(c0.row) + it * c0.rowStep;
        int64_t col = int64_t(c0.col) + it * c0.colStep;
        c.repeat = 1;
        for (uint32_t k = 0; k < c0.repeat; ++k, ++col) {
          c.row = uint32_t(row + col / m_cfg.columns);
          c.col = uint32_t(col % m_cfg.columns);
          issue(c);
        }
      }
      if (!ff || it + 1 >= blk.repeat) continue;
      snapshot(cur);
      if (havePrev && cur.rel == prev.rel) {
        const int64_t period = cur.base - prev.base;
        bool rowsOk = lastRowDelta.size() == cur.rows.size();  // open rows advance by a constant step
        for (size_t b = 0; b < cur.rows.size() && rowsOk; ++b)
          rowsOk = (cur.rows[b] < 0) == (prev.rows[b] < 0) && cur.rows[b] - prev.rows[b] == lastRowDelta[b];
        if (rowsOk && period > 0) {
          int64_t k = blk.repeat - 1 - it;
          // Skipped iterations must not reach the next refresh deadline: stop two periods plus a margin (more
          // than a row command can be planned past the column frontier: WR->PRE, tRAS) before it.
          for (const RefreshUnit& u : m_refresh)
            k = std::min(k, std::max<int64_t>(0, (u.next - cur.base - 2 * period - 256) / period));
          if (k > 0) {
            jump(k, period, prev, cur);
            it += k;
            havePrev = false;
            lastRowDelta.clear();
            continue;
          }
        }
      }
      lastRowDelta.clear();
      if (havePrev)
        for (size_t b = 0; b < cur.rows.size(); ++b) lastRowDelta.push_back(cur.rows[b] - prev.rows[b]);
      std::swap(prev, cur);
      havePrev = true;
    }
  }
  if (m_phase >= 0) phaseEnd[m_phase] = std::max(phaseEnd[m_phase], m_maxCompletion);
  endCycle = m_maxCompletion;
  for (BankState& bs : m_banks)
    if (bs.openRow >= 0) bs.busy += std::max<int64_t>(0, endCycle - bs.openedAt);
}

}  // namespace pim::sim
