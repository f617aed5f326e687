// SPDX-License-Identifier: Apache-2.0
#include "sim/scheduler.h"

#include <algorithm>
#include <array>
#include <bit>

namespace pim::sim {

bool isAllBankOp(Op op) {
  return op == Op::ACTAB || op == Op::MACAB || op == Op::PIM_LD || op == Op::PIM_MAC || op == Op::PIM_ADD ||
         op == Op::PIM_MUL || op == Op::PIM_WB || op == Op::PIM_RELU;
}

namespace {
// How an HBM-PIM command is timed under DeviceConfig::pimOpsByAddress (the DCC artifact's timing table):
// spaced among the arithmetic by its address, or not at all; No: as any command of its class.
enum class ForkOp { No, Spaced, Untimed };
ForkOp forkOp(const DeviceConfig& cfg, Op op) {
  if (!cfg.pimOpsByAddress) return ForkOp::No;
  switch (op) {
    case Op::PIM_LD:
    case Op::PIM_MAC:
    case Op::PIM_ADD:
    case Op::PIM_MUL:
      return ForkOp::Spaced;
    case Op::PIM_WB:
    case Op::PIM_RELU:
    case Op::PIM_RESET:
      return ForkOp::Untimed;
    default:
      return ForkOp::No;
  }
}
}  // namespace

uint64_t commandMask(const DeviceConfig& cfg, const Command& c) {
  const int nBanks = cfg.banksPerChannel(), perRank = cfg.banksPerRank();
  const uint64_t all = nBanks >= 64 ? ~0ULL : ((1ULL << nBanks) - 1);
  if (c.bankMask) return c.bankMask & all;
  if ((c.flags & kFlagAllBanks) || isAllBankOp(c.op)) return all;
  const int rankBase = (c.pch * cfg.ranks + c.rank) * perRank;
  if (c.op == Op::PREA) {
    const uint64_t rm = perRank >= 64 ? ~0ULL : ((1ULL << perRank) - 1);
    return rm << rankBase;
  }
  return 1ULL << (rankBase + c.bg * cfg.banksPerBankGroup + c.bank);
}

ChannelScheduler::ChannelScheduler(const DeviceConfig& cfg, TraceWindow tw, int traceChannel,
                                   bool fastForward)
    : m_cfg(cfg), m_fastForward(fastForward && !tw.enabled), m_tw(tw), m_traceChannel(traceChannel) {
  m_banksPerRank = cfg.banksPerRank();
  m_banksPerPch = cfg.banksPerPseudoChannel();
  m_nBanks = cfg.banksPerChannel();
  m_colShift = std::has_single_bit(uint64_t(cfg.columns)) ? std::countr_zero(uint64_t(cfg.columns)) : -1;
  m_banks.resize(static_cast<size_t>(m_nBanks));
  m_ranks.resize(static_cast<size_t>(cfg.pseudoChannels * cfg.ranks));
  m_pchs.resize(static_cast<size_t>(cfg.pseudoChannels));
  phaseEnd.fill(-1);
  m_single.resize(size_t(m_nBanks));
  for (int b = 0; b < m_nBanks; ++b) {
    MaskInfo& mi = m_single[size_t(b)];
    mi.mask = 1ULL << b;
    mi.ranks = 1u << rankOf(b);
    mi.pchs = 1u << pchOf(b);
    mi.bg[size_t(rankOf(b))] = 1u << bgOf(b);
  }
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

ChannelRun ChannelScheduler::release() {
  ChannelRun r;
  r.phaseEnd = phaseEnd;
  r.endCycle = endCycle;
  r.rowCommands = rowCommands, r.columnCommands = columnCommands, r.refreshes = refreshes;
  r.iterationsSkipped = iterationsSkipped;
  r.stopped = stopped;
  r.banks = std::move(m_banks);
  r.trace = std::move(m_trace);
  return r;
}

uint64_t ChannelScheduler::maskOf(const Command& c) const { return commandMask(m_cfg, c); }

const ChannelScheduler::MaskInfo& ChannelScheduler::info(uint64_t mask) const {
  if ((mask & (mask - 1)) == 0 && mask) return m_single[size_t(std::countr_zero(mask))];
  if (m_info.mask == mask && mask) return m_info;
  MaskInfo mi;
  mi.mask = mask;
  forBits(mask, [&](int b) {
    mi.ranks |= 1u << rankOf(b);
    mi.pchs |= 1u << pchOf(b);
    mi.bg[rankOf(b)] |= 1u << bgOf(b);
  });
  m_info = mi;
  return m_info;
}

int64_t ChannelScheduler::rowSlot(int64_t t, bool act) const {
  // ACTs stay in program order among themselves (tRRD/tFAW bookkeeping is monotonic); a PRE depends only on
  // its own bank, so the controller may issue it into any earlier free slot. Row commands run ahead of the
  // column stream by at most kSlotWindow cycles (the controller's look-ahead / queue depth).
  t = std::max({t, m_floor, m_lastCol - kSlotWindow});
  if (act) t = std::max(t, m_lastAct + 1);
  if (!m_cfg.separateRowColumnBus)
    t = m_used.firstFreeFrom(t);
  else if (rowBusSlotted())
    t = m_rowUsed.firstFreeFrom(t);
  return t;
}

int64_t ChannelScheduler::bufferFrontier() const {
  // Buffer moves on their own path look ahead of the MAC stream as far as row commands do.
  return std::max(m_lastBufCol, m_lastCol - kSlotWindow);
}

int64_t ChannelScheduler::colSlot(int64_t t, bool bufferPath) const {
  t = std::max({t, m_floor, m_colFloor, (bufferPath ? bufferFrontier() : m_lastCol) + 1});
  if (!m_cfg.separateRowColumnBus || m_cfg.macOwnDataPath)  // one column command per cycle
    t = m_used.firstFreeFrom(t);
  return t;
}

void ChannelScheduler::take(int64_t t, bool row, bool act, bool bufferPath) {
  if (row) {
    if (act) m_lastAct = std::max(m_lastAct, t);
    ++rowCommands;
    if (rowBusSlotted()) {
      m_rowUsed.insert(t);
      m_rowUsed.eraseBelow(std::min(m_floor, m_lastCol - kSlotWindow));  // rowSlot() asks nothing below
    }
  } else if (bufferPath) {
    m_lastBufCol = std::max(m_lastBufCol, t);
    ++columnCommands;
  } else {
    m_prevCol = m_lastCol;
    m_lastCol = t;
    ++columnCommands;
  }
  if (!m_cfg.separateRowColumnBus || (m_cfg.macOwnDataPath && !row)) {
    m_used.insert(t);
    // Nothing can issue before the in-order frontiers any more: drop the older slots.
    const int64_t frontier =
        (m_cfg.separateRowColumnBus ? m_lastCol : std::min(m_lastAct, m_lastCol)) - kSlotWindow;
    m_used.eraseBelow(frontier);
  }
}

void ChannelScheduler::record(int bank, Op op, int64_t t, int64_t dur) {
  if (!m_tw.enabled || t < m_tw.begin || t > m_tw.end || m_trace.size() >= m_tw.maxEvents) return;
  m_trace.push_back({m_traceChannel, bank, op, t, dur});
}

// ---- row commands ----
int64_t ChannelScheduler::planAct(uint64_t mask, bool allBank, int64_t notBefore) const {
  int64_t t = notBefore;
  if (allBank && m_cfg.allBankRowsByChannel) return rowSlot(std::max(t, m_actabReady), true);
  forBits(timedBy(mask), [&](int b) { t = std::max(t, m_banks[b].actReady); });
  if (!allBank) {
    const MaskInfo& mi = info(mask);
    const uint32_t ranksTouched = mi.ranks;
    const auto& bgTouched = mi.bg;  // ACTAB is exempt from tRRD/tFAW (attacc.md)
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
  if (allBank) {
    m_preaReady = std::max(m_preaReady, t + c.pimActToPre);
    m_actabReady = std::max(m_actabReady, t + c.pimActToAct);
  }
  take(t, true, true);
  complete(t + 1);
  if (m_requestAct < 0) m_requestAct = t;
}

int64_t ChannelScheduler::planPre(uint64_t mask, int64_t notBefore, bool allBank) const {
  int64_t t = notBefore;
  if (allBank && m_cfg.allBankRowsByChannel)  // not before a column command served earlier either
    return rowSlot(std::max({t, m_lastAct + kActCycles, m_preaReady, m_lastCol}), false);
  forBits(timedBy(mask), [&](int b) {
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
  if (allBank) m_actabReady = std::max(m_actabReady, t + tRP);
  take(t, true, false);
  complete(t + 1);
}

// A group's last command is activated only once it heads the queue: after the column command before it.
int64_t ChannelScheduler::actGate() const {
  if (m_cfg.barrierMode != BarrierMode::Window) return 0;
  return m_groupEnd ? std::max(m_actGate, m_lastCol + 1) : m_actGate;
}

// ---- refresh ----
// `actMask`: the banks an ACT planned at t would open (0 for other commands).
bool ChannelScheduler::refreshDue(int64_t t, uint64_t actMask) {
  m_planMax = std::max(m_planMax, t);
  bool any = false;
  for (RefreshUnit& u : m_refresh) {
    if (m_cfg.lazyRefresh) {
      if (u.next <= t && lazyRefresh(u, t, (actMask & u.parked) != 0)) any = true;
      continue;
    }
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
  issueRef(u, refAt);
}

// DRAMSim2's refresh (config.h, lazyRefresh) seen from a command planned at t: every open bank of the unit
// whose precharge the controller could have issued by t (from the deadline on, as soon as the bank allows)
// is closed there, one PRE per group of banks that became closable together. Everything else keeps issuing
// meanwhile, ACTs into banks still open or never closed for this refresh included, so REF waits for a moment
// when no bank of the unit is open; it then goes out the cycle after the last PRE (DRAMSim2 does not wait
// tRP). A bank precharged for the refresh is not re-opened before REF: an ACT into it (`force`) closes the
// rest as soon as they allow (without this a stream over many banks could keep postponing REF, re-opening
// each bank it closed). True if any command was placed.
bool ChannelScheduler::lazyRefresh(RefreshUnit& u, int64_t t, bool force) {
  const int64_t due = u.next;
  bool placed = false;
  int64_t lastPre = due - 1;
  for (;;) {
    uint64_t group = 0;
    int64_t at = INT64_MAX;
    forBits(u.mask, [&](int b) {
      if (m_banks[b].openRow < 0) return;
      const int64_t p = std::max(due, m_banks[b].preReady);
      if (p < at) group = 0, at = p;
      if (p == at) group |= 1ULL << b;
    });
    if (!group) break;
    if (at > t && !force) return placed;  // a bank still busy at t: the refresh waits for it
    const int64_t tp = rowSlot(at, false);
    commitPre(group, tp, false, Op::PREA);
    u.parked |= group;
    lastPre = std::max(lastPre, tp);
    placed = true;
  }
  issueRef(u, lastPre + 1);
  return true;
}

void ChannelScheduler::issueRef(RefreshUnit& u, int64_t earliest) {
  const int64_t refAt = rowSlot(earliest, false);
  forBits(u.mask, [&](int b) { m_banks[b].actReady = refAt + m_cfg.tRFC; });
  m_actabReady = std::max(m_actabReady, refAt + m_cfg.tRFC);
  take(refAt, true, false);
  --rowCommands;  // counted separately
  ++refreshes;
  record(std::countr_zero(u.mask), Op::PREA, refAt, m_cfg.tRFC);
  u.next += m_cfg.tREFI;
  u.parked = 0;
}

// ---- column commands ----
int64_t ChannelScheduler::planForkOp(const Command& c, uint64_t mask, bool spaced) const {
  int64_t t = m_arrival;  // the row is open: from the cycle of its ACT on
  forBits(timedBy(mask), [&](int b) { t = std::max(t, m_banks[b].openedAt); });
  if (spaced) {
    const RankState& rs = m_ranks[size_t(addressedRank(c))];
    t = std::max({t, m_opReady, rs.opReadyS, rs.opReadyL[c.bg]});
  }
  return colSlot(t, false);
}

int64_t ChannelScheduler::planCol(const Command& c, uint64_t mask, bool read) const {
  if (const ForkOp f = forkOp(m_cfg, c.op); f != ForkOp::No) return planForkOp(c, mask, f == ForkOp::Spaced);
  int64_t t = m_arrival;
  if (read)
    forBits(timedBy(mask), [&](int b) { t = std::max(t, m_banks[b].rdReady); });
  else
    forBits(timedBy(mask), [&](int b) { t = std::max(t, m_banks[b].wrReady); });
  const bool allBank = isAllBankOp(c.op);
  if (allBank) t = std::max(t, m_lastMac + m_cfg.pimMacToMac);
  if (allBank && m_cfg.macOwnDataPath) return colSlot(t, false);
  const MaskInfo& mi = info(mask);
  const uint32_t ranksTouched = mi.ranks, pchTouched = mi.pchs;
  const auto& bgTouched = mi.bg;
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
  return colSlot(t, false);
}

void ChannelScheduler::commitCol(const Command& c, uint64_t mask, int64_t t, bool read) {
  const DeviceConfig& cf = m_cfg;
  const bool allBank = isAllBankOp(c.op);
  const ForkOp fork = forkOp(cf, c.op);
  const bool pimOp = (c.flags & kFlagPim) || allBank;
  const bool host = c.op == Op::HOST_RD || c.op == Op::HOST_WR;
  const int bus = cf.burstCycles();
  const int toPre = read ? (allBank ? cf.pimMacToPre : cf.rdToPre) : cf.wrToPre;
  forBits(mask, [&](int b) {
    BankState& bs = m_banks[b];
    (read ? bs.rds : bs.wrs)++;
    if (pimOp) ++bs.pimOps;
    if (host) ++bs.hostBursts;
    if (fork == ForkOp::No) bs.preReady = std::max(bs.preReady, t + toPre);
  });
  if (m_tw.enabled) forBits(mask, [&](int b) { record(b, c.op, t, read ? cf.CL + bus : cf.CWL + bus); });
  if (fork == ForkOp::Spaced) {
    RankState& rs = m_ranks[size_t(addressedRank(c))];
    m_opReady = t + bus;
    rs.opReadyS = t + cf.tCCDS;
    rs.opReadyL[c.bg] = t + cf.tCCDL;
  } else if (fork == ForkOp::No) {
    if (!allBank || !cf.macOwnDataPath) takeColumnSlots(mask, t, read);
    if (allBank) {
      m_lastMac = t;
      m_preaReady = std::max(m_preaReady, t + cf.pimMacToPre);
    }
  }
  take(t, false, false);
  m_requestCol = t;
  complete(t + (read ? cf.CL : cf.CWL) + bus);
}

void ChannelScheduler::takeColumnSlots(uint64_t mask, int64_t t, bool read) {
  const DeviceConfig& cf = m_cfg;
  const int bus = cf.burstCycles();
  const MaskInfo& mi = info(mask);
  const uint32_t ranksTouched = mi.ranks, pchTouched = mi.pchs;
  const auto bgTouched = mi.bg;
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
      const int64_t t = planPre(needPre, m_arrival, allBank);
      if (refreshDue(t)) continue;
      commitPre(needPre, t, allBank, allBank ? Op::PREA : Op::PRE);
      continue;
    }
    if (needAct) {
      const int64_t t = planAct(needAct, allBank, std::max(actGate(), m_arrival));
      if (refreshDue(t, needAct)) continue;
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
        const int64_t t = planPre(m, m_arrival, allBank);
        if (refreshDue(t)) continue;
        commitPre(m, t, allBank, allBank ? Op::PREA : Op::PRE);
        continue;
      }
      uint64_t closed = 0;
      forBits(mask, [&](int b) {
        if (m_banks[b].openRow < 0) closed |= 1ULL << b;
      });
      if (!closed) return;  // already open: nothing to do
      const int64_t t = planAct(closed, allBank, std::max(actGate(), m_arrival));
      if (refreshDue(t, closed)) continue;
      commitAct(closed, t, c.row, allBank);
      return;
    }
    uint64_t open = 0;
    forBits(mask, [&](int b) {
      if (m_banks[b].openRow >= 0) open |= 1ULL << b;
    });
    if (!open) return;  // precharging closed banks is a no-op
    const int64_t t = planPre(open, m_arrival, allBank);
    if (refreshDue(t)) continue;
    commitPre(open, t, allBank, c.op);
    if (c.flags & kFlagModeSwitch) m_lastAct = std::max(m_lastAct, t);  // ACTs stay in order after it
    return;
  }
}

int64_t ChannelScheduler::planBuffer(const Command& c) const {
  if (forkOp(m_cfg, c.op) == ForkOp::Untimed) return colSlot(m_arrival, m_cfg.macOwnDataPath);
  const RankState& rs = m_ranks[size_t(addressedRank(c))];
  const int64_t t = std::max({rs.colReadyS, rs.colReadyL[c.bg], m_pchs[c.pch].busFree, m_arrival});
  return colSlot(t, m_cfg.macOwnDataPath);
}

void ChannelScheduler::issueBuffer(const Command& c) {
  // Buffer moves need no open row but take a column slot of their pseudo-channel / rank / bank group.
  const DeviceConfig& cf = m_cfg;
  const int r = addressedRank(c);
  for (;;) {
    RankState& rs = m_ranks[r];
    PseudoChannelState& ps = m_pchs[c.pch];
    const int64_t t = planBuffer(c);
    if (refreshDue(t)) continue;
    if (forkOp(cf, c.op) == ForkOp::No) {
      rs.colReadyS = t + cf.tCCDS;
      rs.colReadyL[c.bg] = t + cf.tCCDL;
      ps.busFree = t + cf.burstCycles();
    }
    take(t, false, false, m_cfg.macOwnDataPath);
    ++m_banks[size_t(addressedBank(c))].bufMoves;
    m_requestCol = t;
    record(-1, c.op, t, cf.burstCycles());
    complete(t + cf.burstCycles());
    return;
  }
}

void ChannelScheduler::issue(const Command& c) {
  const int ph = static_cast<int>(c.phase);
  if (ph != m_phase) {  // phase change: full fence (the DCC artifact's traces are ordered by barriers only)
    if (m_phase >= 0) phaseEnd[m_phase] = std::max(phaseEnd[m_phase], m_maxCompletion);
    if (m_cfg.barrierMode != BarrierMode::Drain) m_floor = std::max(m_floor, m_maxCompletion);
    m_phase = ph;
  }
  switch (opClass(c.op)) {
    case OpClass::Barrier:
      if (m_cfg.barrierMode == BarrierMode::Drain)
        m_colFloor = std::max(m_colFloor, std::max(m_lastCol, m_lastBufCol) + kDrainBarrierCycles);
      if (m_cfg.macOwnDataPath) m_lastCol = m_lastBufCol = std::max(m_lastCol, m_lastBufCol);
      // The group just closed heads the queue with its last command once the one before it has issued.
      if (m_cfg.barrierMode == BarrierMode::Window) m_actGate = std::max(m_actGate, m_prevCol + 1);
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

}  // namespace pim::sim
