// SPDX-License-Identifier: Apache-2.0
// ChannelScheduler::run: a channel program's blocks in issue order, and the fast-forward of repeated blocks.
// The per-command timing (plan / commit of row, column and buffer commands, refresh) is in scheduler.cpp.
#include "sim/scheduler.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>

namespace pim::sim {

bool reorderable(const Command& c) {
  const OpClass k = opClass(c.op);
  return (k == OpClass::ColRead || k == OpClass::ColWrite) && c.bankMask == 0 && !(c.flags & kFlagAllBanks) &&
         !isAllBankOp(c.op) && c.repeat == 1;
}

namespace {
// The end of the run of reorderable commands that starts at `i` (one phase).
size_t runEnd(const std::vector<Command>& cmds, size_t i) {
  size_t j = i;
  while (j < cmds.size() && reorderable(cmds[j]) && cmds[j].phase == cmds[i].phase) ++j;
  return j;
}

// A controller that may reorder independent requests (FR-FCFS over per-bank queues) does so within a window
// that no barrier separates. For a run of single-bank column commands this amounts to interleaving the
// pseudo-channels (each has its own data bus) and the bank groups (the ACT of another bank group is ready
// tRRD_S after the last one, the same group only after tRRD_L), while commands to the same bank keep their
// order: round n takes the n-th command of every (rank, bank group, pseudo-channel), pseudo-channels fastest.
// Broadcast (masked / all-bank) commands are never reordered. (A channel fed request by request serves such
// runs as it goes instead: ChannelScheduler::serveNext.)
std::vector<size_t> issueOrder(const std::vector<Command>& cmds, int bankGroups) {
  std::vector<size_t> order(cmds.size());
  for (size_t i = 0; i < cmds.size(); ++i) order[i] = i;
  size_t i = 0;
  while (i < cmds.size()) {
    if (!reorderable(cmds[i])) {
      ++i;
      continue;
    }
    const size_t j = runEnd(cmds, i);
    if (j - i > 1) {
      std::vector<std::pair<int64_t, size_t>> key;
      std::vector<int64_t> seenInBg(size_t(64 * bankGroups), 0);
      for (size_t k = i; k < j; ++k) {
        const Command& c = cmds[k];
        const size_t g = size_t((c.rank * bankGroups + c.bg) * 8 + c.pch);
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

void ChannelScheduler::snapshot(Snapshot& s) {
  // Every future command issues at or after base - kSlotWindow. "Ready" timestamps older than that, and "last
  // event" timestamps older than that minus the largest spacing added to them (tFAW, tRRD, MACAB spacing,
  // all < 128), can no longer bind, so they are clamped and compare equal. Row opening times only feed the
  // busy-cycle statistic and are kept exact (compared where a row is re-opened within the period).
  // "Last ACT" times bind through tRRD/tFAW (and +1 for ACT order) only.
  const int64_t kFar = kSlotWindow + std::max({1, m_cfg.tRRDS, m_cfg.tRRDL, m_cfg.tFAW});
  const int64_t base = m_lastCol;
  s.base = base;
  s.planMax = m_planMax;
  m_planMax = INT64_MIN;
  const size_t nb = m_banks.size();
  // Written into a scratch buffer that only grows, then copied: resizing `rel` up to the bound and back
  // down zero-filled every slot of m_used at each snapshot.
  const size_t bound =
      nb * 4 + m_ranks.size() * 39 + m_pchs.size() * 8 + 11 + m_used.size() + 1 + m_rowUsed.size() + 1;
  if (m_snapshotScratch.size() < bound) m_snapshotScratch.resize(bound);
  s.rows.resize(nb);
  s.opened.resize(nb);
  s.counters.resize(nb * 8 + 3);
  int64_t* out = m_snapshotScratch.data();
  int64_t* cnt = s.counters.data();
  auto t = [&](int64_t v) { *out++ = std::max(v - base, -kFar); };
  // Tighter for "ready" times: row commands issue at or after base - kSlotWindow, column commands (and buffer
  // moves) after base.
  auto tr = [&](int64_t v) { *out++ = std::max(v - base, -kSlotWindow); };
  auto tc = [&](int64_t v) { *out++ = std::max<int64_t>(v - base, 1); };
  // With buffer moves on their own path (which may issue down to base - kSlotWindow), the slots they wait on.
  auto tb = [&](int64_t v) { m_cfg.macOwnDataPath ? tr(v) : tc(v); };
  for (size_t i = 0; i < nb; ++i) {
    const BankState& b = m_banks[i];
    tr(b.actReady), tr(b.preReady), tc(b.rdReady), tc(b.wrReady);
    s.rows[i] = b.openRow;
    s.opened[i] = b.openRow >= 0 ? b.openedAt - base : 0;
    cnt[0] = b.acts, cnt[1] = b.pres, cnt[2] = b.rds, cnt[3] = b.wrs, cnt[4] = b.pimOps, cnt[5] = b.busy,
    cnt[6] = b.hostBursts, cnt[7] = b.bufMoves;
    cnt += 8;
  }
  for (const RankState& r : m_ranks) {
    t(r.lastAct), tb(r.colReadyS);
    for (int64_t v : r.lastActBg) t(v);
    for (int i = 0; i < 4; ++i) t(r.faw[(r.fawPos + i) & 3]);
    for (int64_t v : r.colReadyL) tb(v);
    for (int64_t v : r.rdAfterWrL) tc(v);
    tc(r.opReadyS);
    for (int64_t v : r.opReadyL) tc(v);
  }
  for (const PseudoChannelState& p : m_pchs) {
    tb(p.busFree), tc(p.rdAfterWrS), tc(p.wrAfterRd), t(p.lastAct);
    for (int i = 0; i < 4; ++i) t(p.faw[(p.fawPos + i) & 3]);
  }
  t(m_lastAct), tr(m_floor), tc(m_colFloor), t(m_prevCol), tr(m_actGate), tr(bufferFrontier());
  *out++ = std::max(m_maxCompletion - base, -kSlotWindow);  // row commands complete after they issue
  *out++ = std::max<int64_t>(m_lastMac + m_cfg.pimMacToMac - base, 1);
  tc(m_opReady);
  tr(m_preaReady), tr(m_actabReady);
  m_used.forEachFrom(base - kFar, t);
  *out++ = static_cast<int64_t>(m_used.size());
  m_rowUsed.forEachFrom(base - kFar, t);
  *out++ = static_cast<int64_t>(m_rowUsed.size());
  s.rel.assign(m_snapshotScratch.data(), out);
  cnt[0] = rowCommands, cnt[1] = columnCommands, cnt[2] = refreshes;
  uint64_t h = 1469598103934665603ULL;
  for (int64_t v : s.rel) h = (h ^ uint64_t(v)) * 0x100000001b3ULL;
  s.hash = h;
}

void ChannelScheduler::jump(int64_t k, const Snapshot& prev, const Snapshot& cur,
                            const std::vector<int64_t>& rowDelta) {
  // k periods of cur.it - prev.it iterations each.
  const int64_t dt = k * (cur.base - prev.base);
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
    if (s.openRow >= 0) s.openRow += k * rowDelta[b];
    cnt(s.acts), cnt(s.pres), cnt(s.rds), cnt(s.wrs), cnt(s.pimOps), cnt(s.busy), cnt(s.hostBursts),
        cnt(s.bufMoves);
  }
  for (RankState& r : m_ranks) {
    r.lastAct += dt, r.colReadyS += dt, r.opReadyS += dt;
    for (auto* arr : {&r.lastActBg, &r.colReadyL, &r.rdAfterWrL, &r.opReadyL})
      for (int64_t& v : *arr) v += dt;
    for (int64_t& v : r.faw) v += dt;
  }
  for (PseudoChannelState& p : m_pchs) {
    p.busFree += dt, p.rdAfterWrS += dt, p.wrAfterRd += dt, p.lastAct += dt;
    for (int64_t& v : p.faw) v += dt;
  }
  m_lastAct += dt, m_lastCol += dt, m_lastMac += dt, m_floor += dt, m_colFloor += dt;
  m_prevCol += dt, m_actGate += dt, m_lastBufCol += dt, m_opReady += dt, m_preaReady += dt,
      m_actabReady += dt;
  m_maxCompletion += dt;
  m_used.shift(dt);
  m_rowUsed.shift(dt);
  cnt(rowCommands), cnt(columnCommands), cnt(refreshes);
  iterationsSkipped += k * (cur.it - prev.it);
}

namespace {
bool singlePhase(const Block& b) {
  for (const Command& c : b.cmds)
    if (c.phase != b.cmds.front().phase) return false;
  return !b.cmds.empty();
}
int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
}  // namespace

// Period detection and skipping for the block being run (see Snapshot in scheduler.h). One object serves
// every block of a run, so its vectors keep their capacity from block to block.
struct ChannelScheduler::FastForward {
  explicit FastForward(ChannelScheduler& s) : sched(s), C(s.m_cfg.columns) {}
  /// Prepares for block b; false if b is not fast-forwarded.
  bool begin(const Block& b);
  /// Whether a snapshot is taken after iteration `it` (never after the last one).
  bool due(int64_t it) const { return it + 1 < blk->repeat && (it + 1) % stride == 0; }
  /// Takes the snapshot after iteration `it` and skips whole periods when the state repeats. Returns the
  /// number of iterations skipped (0: none).
  int64_t afterIteration(int64_t it);

 private:
  static constexpr int64_t kMaxPeriod = 64;  // longest period (in iterations) fast-forward looks for

  void window(int64_t a, int64_t L, int64_t& bmax, std::vector<int64_t>& delta) const;
  bool rowsCheck(const Snapshot& a, const Snapshot& b, int64_t m, int64_t last,
                 const std::vector<int64_t>& delta, std::vector<int64_t>& bankDelta);
  bool matches(const Snapshot& a, const Snapshot& b, const Snapshot& p0, const Snapshot& p1) const;
  int64_t refreshBound(int64_t dt, int64_t planOver) const;
  int64_t skippable(int64_t it, int64_t bmax, int64_t L, int64_t dt, int64_t planOver) const;
  int64_t rebased(const Snapshot& cur, int64_t it, int64_t L, int64_t dt);
  int64_t continueReference(const Snapshot& cur, int64_t it);
  int64_t detectPeriod(size_t slot, int64_t it);
  int64_t skip(int64_t k, int64_t L);

  ChannelScheduler& sched;
  const int64_t C;  // row length in columns
  const Block* blk = nullptr;
  std::vector<uint64_t> masks;  // bank mask per command of blk (0: buffer move / barrier)
  int64_t stride = 1;           // iterations between snapshots
  size_t H = 1;                 // snapshots kept (hist is a ring indexed by (it + 1) / stride)
  std::vector<Snapshot> hist;
  Snapshot ref0, ref1;  // a detected period: state before and after it (ref1.it = ref0.it + L)
  bool haveRef = false;
  int64_t refPlanOver = 0;        // latest planned time of the reference period relative to its end
  int64_t stillBase = INT64_MIN;  // the column frontier at the last snapshot point
  size_t stillSnapshots = 0;      // consecutive snapshot points since, with that frontier unchanged
  std::vector<int64_t> refRowDelta, rowDelta, cmdDelta, bankShift;
  std::vector<std::vector<std::array<int64_t, 3>>> groups;  // per bank: {row advance, lowest, highest row}
};

bool ChannelScheduler::FastForward::begin(const Block& b) {
  blk = &b;
  bool ff = sched.m_fastForward && b.repeat >= 4 && singlePhase(b);
  // Command rows as a function of the iteration j: row + j*rowStep + floor((col + j*colStep + r)/columns).
  // Over L iterations a command's row advances by a constant D_c when L*colStep is a multiple of the row
  // length; otherwise only while no column carry happens. Negative columns/rows: no fast-forward.
  int64_t cmdsPerIter = 0, carryPeriod = 1;
  masks.clear();
  for (const Command& c : b.cmds) {
    const OpClass k = opClass(c.op);
    masks.push_back(k == OpClass::Buffer || k == OpClass::Barrier ? 0 : sched.maskOf(c));
    cmdsPerIter += c.repeat;
    const int64_t last = b.repeat - 1;
    if (c.col + int64_t(c.colStep) * last < 0 || c.row + int64_t(c.rowStep) * last < 0) ff = false;
    const int64_t step = ((int64_t(c.colStep) % C) + C) % C;
    if (step) carryPeriod = std::lcm(carryPeriod, C / std::gcd(step, C));
  }
  // Snapshots cost about as much as a few dozen commands: short iterations are sampled every carry period.
  stride = (cmdsPerIter >= 16 || carryPeriod > kMaxPeriod) ? 1 : carryPeriod;
  const int64_t maxL = std::max(kMaxPeriod, stride);
  H = size_t(maxL / stride) + 1;
  // Keep the slots' buffers from the previous block (a snapshot overwrites all of them): allocating and
  // zeroing H fresh ones per block cost as much as the snapshots themselves.
  hist.resize(H);
  for (Snapshot& h : hist) h.it = -1;
  haveRef = false;
  refPlanOver = 0;
  stillBase = INT64_MIN;
  stillSnapshots = 0;
  return ff;
}

// Largest last iteration bmax such that every command's row advances by a constant D_c per L iterations over
// [a, bmax] (delta).
void ChannelScheduler::FastForward::window(int64_t a, int64_t L, int64_t& bmax,
                                           std::vector<int64_t>& delta) const {
  bmax = blk->repeat - 1;
  delta.clear();
  for (const Command& c : blk->cmds) {
    int64_t d = L * c.rowStep;
    if ((L * c.colStep) % C == 0) {
      d += L * c.colStep / C;
    } else {
      // No carry may happen: floor(lo/C) == floor(hi/C) over the columns [lo, hi] used in [a, b].
      const int64_t xa = c.col + a * int64_t(c.colStep), R = c.repeat;
      int64_t b;
      if (c.colStep > 0)
        b = floorDiv((floorDiv(xa, C) + 1) * C - R - c.col, c.colStep);
      else
        b = floorDiv(c.col - floorDiv(xa + R - 1, C) * C, -int64_t(c.colStep));
      bmax = std::min(bmax, b);
    }
    delta.push_back(d);
  }
}

// Row equalities decide every PRE/ACT. Commands of a bank that advance by different steps must use disjoint
// row ranges over [first, last] (then they never compare equal, before or after the shift); an open row
// advances with the commands whose range holds it (rows no command uses stay). Ranges are taken from the
// block start (an open row may come from any earlier iteration). `b` must then hold the rows of `a` advanced
// m times; bankDelta receives the advance per period.
bool ChannelScheduler::FastForward::rowsCheck(const Snapshot& a, const Snapshot& b, int64_t m, int64_t last,
                                              const std::vector<int64_t>& delta,
                                              std::vector<int64_t>& bankDelta) {
  const int64_t first = 0;
  const size_t nBanks = sched.m_banks.size();
  groups.assign(nBanks, {});
  for (size_t ci = 0; ci < blk->cmds.size(); ++ci) {
    const Command& c = blk->cmds[ci];
    // From the block start: an open row may come from any earlier iteration.
    const int64_t r0 = c.row + first * int64_t(c.rowStep), r1 = c.row + last * int64_t(c.rowStep);
    const int64_t x0 = c.col + first * int64_t(c.colStep), x1 = c.col + last * int64_t(c.colStep);
    const int64_t lo = std::min(r0, r1) + floorDiv(std::min(x0, x1), C);
    const int64_t hi = std::max(r0, r1) + floorDiv(std::max(x0, x1) + c.repeat - 1, C);
    forBits(masks[ci], [&](int bk) {
      for (auto& g : groups[bk])
        if (g[0] == delta[ci]) {
          g[1] = std::min(g[1], lo), g[2] = std::max(g[2], hi);
          return;
        }
      groups[bk].push_back({delta[ci], lo, hi});
    });
  }
  bankDelta.assign(nBanks, 0);
  for (size_t bk = 0; bk < nBanks; ++bk) {
    const auto& g = groups[bk];
    for (size_t i = 0; i < g.size(); ++i)
      for (size_t j = i + 1; j < g.size(); ++j)
        if (g[i][1] <= g[j][2] && g[j][1] <= g[i][2]) return false;
    if ((a.rows[bk] < 0) != (b.rows[bk] < 0)) return false;
    if (a.rows[bk] < 0) continue;
    for (const auto& gi : g)
      if (gi[1] <= a.rows[bk] && a.rows[bk] <= gi[2]) bankDelta[bk] = gi[0];
    if (b.rows[bk] != a.rows[bk] + m * bankDelta[bk]) return false;
  }
  return true;
}

// Same relative state; rows re-opened within the period (p0 -> p1) opened at the same relative time.
bool ChannelScheduler::FastForward::matches(const Snapshot& a, const Snapshot& b, const Snapshot& p0,
                                            const Snapshot& p1) const {
  if (a.hash != b.hash || a.rel != b.rel) return false;
  for (size_t bk = 0; bk < sched.m_banks.size(); ++bk) {
    const size_t ai = bk * 8;  // acts counter of the bank
    if (p1.counters[ai] != p0.counters[ai] && b.rows[bk] >= 0 && a.opened[bk] != b.opened[bk]) return false;
  }
  return true;
}

// Periods that can be skipped from the current state (equivalent to the end of a period whose latest planned
// time was planOver after its end) before a refresh could be due or rows stop advancing regularly.
int64_t ChannelScheduler::FastForward::refreshBound(int64_t dt, int64_t planOver) const {
  int64_t k = INT64_MAX;
  for (const RefreshUnit& u : sched.m_refresh)
    k = std::min(k, (u.next - 1 - (sched.m_lastCol + planOver)) / dt);
  return k;
}

int64_t ChannelScheduler::FastForward::skippable(int64_t it, int64_t bmax, int64_t L, int64_t dt,
                                                 int64_t planOver) const {
  return std::max<int64_t>(0, std::min((bmax - it) / L, refreshBound(dt, planOver)));
}

// The current state (after iteration `it`) equals the reference start state with every row of bank b shifted
// by S_b: each command's rows from it+1 on are its rows from ref0.it+1 on plus S_c, so whole reference
// periods follow (rows advancing by D_c per period) while no command carries into another row. Requires one
// (S, D) per bank. Returns the periods that can be skipped (0: not applicable); fills refRowDelta.
int64_t ChannelScheduler::FastForward::rebased(const Snapshot& cur, int64_t it, int64_t L, int64_t dt) {
  int64_t bRef, bCur;
  window(ref0.it + 1, L, bRef, cmdDelta);
  window(it + 1, L, bCur, rowDelta);
  if (bRef < ref1.it) return 0;
  const int64_t k = skippable(it, bCur, L, dt, refPlanOver);
  if (k <= 0) return 0;
  const size_t nBanks = sched.m_banks.size();
  bankShift.assign(nBanks, INT64_MIN);
  refRowDelta.assign(nBanks, INT64_MIN);
  for (size_t ci = 0; ci < blk->cmds.size(); ++ci) {
    const Command& c = blk->cmds[ci];
    const int64_t step = int64_t(c.colStep) % C;
    // Commands with periodic carries (within the period) only line up at a multiple of their carry period.
    if (step != 0 && (L * c.colStep) % C == 0 && ((it - ref1.it) * c.colStep) % C != 0) return 0;
    auto rowAt = [&](int64_t j, int64_t r) {
      return c.row + j * c.rowStep + floorDiv(c.col + j * c.colStep + r, C);
    };
    // The next L iterations replay the reference period (ref0 -> ref1), shifted.
    const int64_t sc = rowAt(it + 1, 0) - rowAt(ref0.it + 1, 0);
    if (rowAt(it + 1, c.repeat - 1) - rowAt(ref0.it + 1, c.repeat - 1) != sc) return 0;
    bool ok = true;
    forBits(masks[ci], [&](int bk) {
      if (bankShift[bk] == INT64_MIN) bankShift[bk] = sc, refRowDelta[bk] = cmdDelta[ci];
      ok = ok && bankShift[bk] == sc && refRowDelta[bk] == cmdDelta[ci];
    });
    if (!ok) return 0;
  }
  for (size_t bk = 0; bk < nBanks; ++bk) {
    if (bankShift[bk] == INT64_MIN) bankShift[bk] = 0, refRowDelta[bk] = 0;
    if ((cur.rows[bk] < 0) != (ref1.rows[bk] < 0) || (ref0.rows[bk] < 0) != (ref1.rows[bk] < 0)) return 0;
    if (cur.rows[bk] >= 0 && cur.rows[bk] != ref0.rows[bk] + bankShift[bk]) return 0;
  }
  return k;
}

int64_t ChannelScheduler::FastForward::afterIteration(int64_t it) {
  // A refresh is due within the next reference period: nothing can be skipped before it has been simulated.
  if (haveRef && refreshBound(ref1.base - ref0.base, refPlanOver) <= 0) return 0;
  // A period must advance the column frontier (detectPeriod). Where it has stood still over every snapshot
  // the ring holds (a block of buffer moves, which leave it behind), no period can be found: skip the
  // snapshot, whose slot list then grows with every iteration (quadratic time; skipping is always exact).
  if (sched.m_lastCol != stillBase) {
    stillBase = sched.m_lastCol;
    stillSnapshots = 0;
  } else if (++stillSnapshots >= H) {
    return 0;
  }
  const size_t slot = size_t((it + 1) / stride) % H;
  Snapshot& cur = hist[slot];
  sched.snapshot(cur);
  cur.it = it;
  // Compare with the reference period first (the refresh bound above still holds: a snapshot changes
  // neither the refresh deadlines nor the column frontier); detect a new period if that does not skip.
  if (haveRef && matches(ref1, cur, ref0, ref1)) {
    const int64_t skipped = continueReference(cur, it);
    if (skipped > 0) return skipped;
  }
  return detectPeriod(slot, it);
}

// Continuation of the reference period (typically right after a refresh was simulated): the state is the
// reference end state again, either whole periods later (rows advanced by the period's steps) or, for streams
// whose rows advance only at column carries, in another row segment (every row of a bank shifted by the same
// amount, see rebased()). Returns the iterations skipped.
int64_t ChannelScheduler::FastForward::continueReference(const Snapshot& cur, int64_t it) {
  const int64_t L = ref1.it - ref0.it, dt = ref1.base - ref0.base;
  int64_t k = 0;
  if ((it - ref1.it) % L == 0) {
    int64_t bmax;
    window(ref0.it + 1, L, bmax, cmdDelta);
    k = skippable(it, bmax, L, dt, refPlanOver);
    if (k > 0 && !(rowsCheck(ref1, cur, (it - ref1.it) / L, it + k * L, cmdDelta, rowDelta) &&
                   rowsCheck(ref0, ref1, 1, it + k * L, cmdDelta, refRowDelta)))
      k = 0;
  }
  if (k == 0) k = rebased(cur, it, L, dt);
  return k > 0 ? skip(k, L) : 0;
}

// Detection: the state after iteration `it` (in hist[slot]) equals the state L iterations ago (no refresh
// between). The first such L becomes the reference period. Returns the iterations skipped.
int64_t ChannelScheduler::FastForward::detectPeriod(size_t slot, int64_t it) {
  const Snapshot& cur = hist[slot];
  for (size_t mm = 1; mm < H; ++mm) {
    const Snapshot& prev = hist[(slot + H - mm) % H];
    const int64_t L = int64_t(mm) * stride;
    if (prev.it != it - L || prev.hash != cur.hash) continue;
    if (prev.counters.back() != cur.counters.back() || cur.base <= prev.base) continue;  // refresh inside
    if (!matches(prev, cur, prev, cur)) continue;
    int64_t bmax;
    window(prev.it + 1, L, bmax, cmdDelta);
    if (bmax < it || !rowsCheck(prev, cur, 1, it, cmdDelta, rowDelta)) continue;
    int64_t planMax = INT64_MIN;
    for (size_t q = 0; q < mm; ++q) planMax = std::max(planMax, hist[(slot + H - q) % H].planMax);
    ref0 = prev, ref1 = cur, haveRef = true;
    refPlanOver = std::max<int64_t>(planMax - cur.base, 0);
    const int64_t k = skippable(it, bmax, L, cur.base - prev.base, refPlanOver);
    if (k > 0 && rowsCheck(prev, cur, 1, it + k * L, cmdDelta, refRowDelta)) return skip(k, L);
    return 0;
  }
  return 0;
}

// Jumps k reference periods of L iterations; returns the iterations skipped.
int64_t ChannelScheduler::FastForward::skip(int64_t k, int64_t L) {
  sched.jump(k, ref0, ref1, refRowDelta);
  for (Snapshot& h : hist) h.it = -1;  // the snapshots taken so far are no longer L iterations back
  return k * L;
}

// Completion times only grow, so once one passes stopAfter the program is known to take longer.
bool ChannelScheduler::overdue(int64_t stopAfter) {
  if (stopAfter <= 0 || m_maxCompletion <= stopAfter) return false;
  stopped = true;
  endCycle = m_maxCompletion;
  return true;
}

bool ChannelScheduler::issueIteration(const Block& blk, const std::vector<size_t>& order, int64_t it,
                                      int64_t stopAfter) {
  for (size_t p = 0; p < order.size(); ++p) {
    const Command& c0 = blk.cmds[order[p]];
    const bool beforeBarrier = p + 1 < order.size() && opClass(blk.cmds[order[p + 1]].op) == OpClass::Barrier;
    for (uint32_t k = 0; k < c0.repeat; ++k) {
      m_groupEnd = beforeBarrier && k + 1 == c0.repeat;
      issue(addressed(c0, it, k));
      if (overdue(stopAfter)) return false;
    }
  }
  return true;
}

bool ChannelScheduler::runBlock(const Block& blk, FastForward& ff, int64_t stopAfter) {
  const std::vector<size_t> order = issueOrder(blk.cmds, m_cfg.bankGroups);
  const bool fastForward = ff.begin(blk);
  for (int64_t it = 0; it < blk.repeat; ++it) {
    if (!issueIteration(blk, order, it, stopAfter)) return false;
    if (!fastForward || !ff.due(it)) continue;
    const int64_t skipped = ff.afterIteration(it);
    if (skipped == 0) continue;
    if (overdue(stopAfter)) return false;
    it += skipped;
  }
  return true;
}

// The last phase ends with the program; rows still open count as busy up to the end.
void ChannelScheduler::finish() {
  if (m_phase >= 0) phaseEnd[m_phase] = std::max(phaseEnd[m_phase], m_maxCompletion);
  endCycle = m_maxCompletion;
  for (BankState& bs : m_banks)
    if (bs.openRow >= 0) bs.busy += std::max<int64_t>(0, endCycle - bs.openedAt);
}

void ChannelScheduler::run(const ChannelProgram& prog, int64_t stopAfter) {
  if (runPart(prog, stopAfter))
    finish();  // else stopped past stopAfter: the outputs are as overdue() left them
}

bool ChannelScheduler::runPart(const ChannelProgram& part, int64_t stopAfter) {
  FastForward ff(*this);
  for (const Block& blk : part.blocks)
    if (!runBlock(blk, ff, stopAfter)) return false;
  return true;
}

}  // namespace pim::sim
