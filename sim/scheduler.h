// SPDX-License-Identifier: Apache-2.0
#pragma once
// Event-driven command scheduling of one channel. The controller model:
//  * column commands issue in program order; row commands (ACT/PRE, explicit or inserted by the open-page
//    controller for a column command whose row is not open) also stay in order among themselves but may issue
//    ahead of earlier column commands, into any free command slot (this is how "the controller may still
//    issue the ACT for the next command early" across a barrier is modelled);
//  * each command issues at the earliest cycle that satisfies every bank / bank-group / rank / pseudo-channel
//    constraint (no per-cycle loop: every constraint is an "earliest cycle" timestamp);
//  * refresh: when a command would issue at or after a refresh deadline of a rank/pseudo-channel, the
//    controller first closes that unit's open rows (one PREA), issues REF tRP later, and blocks ACT for tRFC;
//    with DeviceConfig::lazyRefresh it closes each bank only once that bank allows, lets other commands go
//    on meanwhile (ACTs included), and issues REF as soon as nothing is open;
//  * a phase change is a full fence (everything of the previous phase completes first), except under
//    BarrierMode::Drain (the DCC artifact's controller), where phases only label the breakdown: the trace's
//    barriers alone order it, as in the artifact.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/bank_state.h"
#include "sim/config.h"
#include "sim/program.h"
#include "sim/result.h"
#include "sim/slot_set.h"

namespace pim::sim {

struct TraceWindow {
  bool enabled = false;
  int64_t begin = 0;
  int64_t end = INT64_MAX;
  size_t maxEvents = 200000;
};

/// All-bank PIM commands (ACTAB, MACAB, the HBM-PIM broadcasts): every bank of the channel, PIM spacings.
bool isAllBankOp(Op op);
/// Single-bank host reads and writes, which a controller may reorder among their neighbours (FR-FCFS).
bool reorderable(const Command& c);
/// The banks a row or column command acts on (bit = flat bank id of the channel).
uint64_t commandMask(const DeviceConfig& cfg, const Command& c);

/// What simulating one channel program yields: everything the simulator needs afterwards (phase ends, command
/// counts and per-bank state for the statistics), so a run can be kept and reused (ChannelRunCache).
struct ChannelRun {
  std::array<int64_t, kNumPhases> phaseEnd{};  // completion of each phase on this channel (-1: absent)
  int64_t endCycle = 0;
  int64_t rowCommands = 0, columnCommands = 0, refreshes = 0;
  int64_t iterationsSkipped = 0;  // by fast-forward
  bool stopped = false;           // gave up past its stopAfter cycle (endCycle is then a lower bound)
  std::vector<BankState> banks;
  std::vector<TraceEvent> trace;
};

class ChannelScheduler {
 public:
  ChannelScheduler(const DeviceConfig& cfg, TraceWindow trace, int traceChannel, bool fastForward = true);
  /// Runs the program; with stopAfter > 0 it returns as soon as a command completes after that cycle
  /// (`stopped` is then set and the outputs describe the program only up to there).
  void run(const ChannelProgram& prog, int64_t stopAfter = 0);
  /// run() in parts, for channels that wait on each other between parts (SimOptions::globalBarriers): each
  /// call continues from the state the previous one left; finish() closes the run. false once stopped.
  bool runPart(const ChannelProgram& part, int64_t stopAfter = 0);
  void finish();  // closes the last phase and the busy time of rows still open
  /// Column commands issue at or after this cycle; a Drain barrier raises it to the channel's drain point.
  int64_t columnFloor() const { return m_colFloor; }
  void holdColumnsUntil(int64_t t) { m_colFloor = std::max(m_colFloor, t); }
  /// Request by request, for a frontend that feeds the channel (sim/frontend.h). Request k of the channel
  /// is its k-th command in program order (repeats expanded, barriers not counted). `arrivals[k]`: no
  /// command of request k issues before it; `departures[k]` (sized by the caller): set when request k is
  /// served, to the cycle it left the controller's request buffer (a host read or write at its ACT if it
  /// needed one, as it moves to the active buffer then; every other request at its column command).
  /// `sent[k]`: its place in the frontend's order. beginPart() takes the part to serve (fast-forward does
  /// not apply); serveNext() serves the next request in the order the controller serves them, choosing only
  /// among the requests placed before `sentBefore` (barriers go along), and returns its k, kBlocked when the
  /// next one is not sent yet, kPartDone, or kStopped past `stopAfter`.
  void feedRequests(const std::vector<int64_t>* arrivals, std::vector<int64_t>* departures,
                    const std::vector<size_t>* sent);
  /// The controller's request buffer holds `entries` requests. serveNext() serves a run of host reads or
  /// writes, or of PIM requests, between two barriers as the DCC artifact's scheduler does
  /// (pim_scheduler.cpp, for every buffer): of the `entries` oldest not yet served, the one whose next
  /// command (its column if its row is open, else PRE or ACT; a buffer move's slot) can issue first, the
  /// oldest of equals; but a younger request that is no row hit waits while another buffered request hits the
  /// open row of its bank. Reads and writes wait in buffers of their own, served one at a time by Ramulator
  /// 2's write mode (the writes from above 80 % of a full write buffer or when no read waits, until below
  /// 20 % with reads waiting).
  void setRequestBuffer(size_t entries) { m_requestBuffer = entries; }
  void beginPart(const ChannelProgram& part);
  static constexpr int64_t kBlocked = -1, kPartDone = -2, kStopped = -3;
  int64_t serveNext(size_t sentBefore, int64_t stopAfter = 0);

  // Outputs.
  std::array<int64_t, kNumPhases> phaseEnd{};  // completion of each phase on this channel (-1: absent)
  int64_t endCycle = 0;
  int64_t rowCommands = 0, columnCommands = 0, refreshes = 0;
  int64_t iterationsSkipped = 0;  // by fast-forward
  bool stopped = false;           // run() gave up past its stopAfter cycle
  const std::vector<BankState>& banks() const { return m_banks; }
  std::vector<TraceEvent>& trace() { return m_trace; }
  /// The outputs above, moved out (the scheduler is spent afterwards).
  ChannelRun release();

 private:
  // Fast-forward of repeated blocks (see docs/simulator.md): snapshots of the whole timing state relative to
  // the column frontier are taken at iteration ends; when the state after iteration i equals the state after
  // iteration i-L (L = 1..64 iterations; open rows advanced exactly as the command rows of those iterations),
  // the stream is periodic from there on and whole periods are skipped in one jump up to the next refresh.
  // The detected period stays a reference after the jump: once the refresh has been simulated exactly, the
  // state is compared with it again at every period boundary and the next jump follows without re-detection.
  struct Snapshot {
    int64_t it = -1;                // iteration after which it was taken
    int64_t base = 0;               // column frontier
    int64_t planMax = 0;            // latest planned issue time since the previous snapshot (absolute)
    uint64_t hash = 0;              // of rel
    std::vector<int64_t> rel;       // every timestamp relative to base (clamped far in the past)
    std::vector<int64_t> rows;      // open row per bank (-1 closed)
    std::vector<int64_t> opened;    // row opening time per bank relative to base (exact)
    std::vector<int64_t> counters;  // every statistic
  };
  void snapshot(Snapshot& s);
  std::vector<int64_t> m_snapshotScratch;  // snapshot()'s working buffer, kept between snapshots
  void jump(int64_t k, const Snapshot& prev, const Snapshot& cur, const std::vector<int64_t>& rowDelta);
  struct FastForward;  // the detection and the jumps for one block at a time (scheduler_run.cpp)

  // run(), one block / iteration at a time; false once overdue() stopped the run.
  bool runBlock(const Block& blk, FastForward& ff, int64_t stopAfter);
  bool issueIteration(const Block& blk, const std::vector<size_t>& order, int64_t it, int64_t stopAfter);
  // Repeat k of c0 in iteration it: a column past the end of the row carries into the next row.
  Command addressed(const Command& c0, int64_t it, uint32_t k) const {
    const int64_t row = int64_t(c0.row) + it * c0.rowStep;
    const int64_t col = int64_t(c0.col) + it * c0.colStep + k;
    Command c = c0;
    c.repeat = 1;
    if (m_colShift >= 0 && col >= 0) {  // same as / and % for a power-of-two row length
      c.row = uint32_t(row + (col >> m_colShift));
      c.col = uint32_t(col & (int64_t(m_cfg.columns) - 1));
    } else {
      c.row = uint32_t(row + col / m_cfg.columns);
      c.col = uint32_t(col % m_cfg.columns);
    }
    return c;
  }
  // serveNext(): the request at position k about to be issued, and its departure once issued.
  void beginRequest(int64_t k);
  void endRequest(const Command& c);
  int64_t readyAt(const Command& c) const;     // the cycle c's next command could issue
  int64_t readyFloor(const Command& c) const;  // a lower bound of readyAt(c), cheap
  bool rowHit(const Command& c) const;         // a column command at the open row of its addressed bank
  // Whether the command at position j of the part was sent before the frontend's `sentBefore`-th request.
  bool sent(size_t j, size_t sentBefore) const { return (*m_sent)[size_t(m_step.request[j])] < sentBefore; }
  void bufferHostRequests(size_t sentBefore);  // fills Stepper::buffered, sets the write mode
  size_t nextServed(size_t sentBefore);        // the command serveNext() issues next (SIZE_MAX: blocked)
  bool overdue(int64_t stopAfter);             // a command completed after stopAfter (> 0): sets `stopped`

  struct RefreshUnit {
    int64_t next;
    uint64_t mask;
    uint64_t parked = 0;  // lazy refresh: banks precharged for the pending REF (no ACT before it)
  };
  void issue(const Command& c);
  void issueRow(const Command& c, uint64_t mask);
  void issueColumn(const Command& c, uint64_t mask);
  void issueBuffer(const Command& c);
  int64_t planBuffer(const Command& c) const;
  // The flat index of the rank (pseudo-channel x rank) and of the bank a command addresses (a broadcast's
  // too: those of its address).
  int addressedRank(const Command& c) const { return c.pch * m_cfg.ranks + c.rank; }
  int addressedBank(const Command& c) const {
    return addressedRank(c) * m_banksPerRank + c.bg * m_cfg.banksPerBankGroup + c.bank;
  }
  void takeColumnSlots(uint64_t mask, int64_t t, bool read);  // a column command's data-bus and tCCD slots
  uint64_t maskOf(const Command& c) const;
  // The banks whose state times a command on `mask` (DeviceConfig::maskTimedByAddressedBank).
  uint64_t timedBy(uint64_t mask) const { return m_cfg.maskTimedByAddressedBank ? mask & (~mask + 1) : mask; }

  int64_t planAct(uint64_t mask, bool allBank, int64_t notBefore = 0) const;
  int64_t actGate() const;  // BarrierMode::Window: earliest ACT for the command being issued
  void commitAct(uint64_t mask, int64_t t, uint32_t row, bool allBank);
  int64_t planPre(uint64_t mask, int64_t notBefore = 0, bool allBank = false) const;
  void commitPre(uint64_t mask, int64_t t, bool allBank, Op op);
  int64_t planCol(const Command& c, uint64_t mask, bool read) const;
  // DeviceConfig::pimOpsByAddress: an HBM-PIM command at its open row, `spaced` among the arithmetic.
  int64_t planForkOp(const Command& c, uint64_t mask, bool spaced) const;
  void commitCol(const Command& c, uint64_t mask, int64_t t, bool read);
  // Performs what due refreshes need by t; true if any command was placed (the caller re-plans).
  bool refreshDue(int64_t t, uint64_t actMask = 0);
  void doRefresh(RefreshUnit& u);
  bool lazyRefresh(RefreshUnit& u, int64_t t, bool force);
  void issueRef(RefreshUnit& u, int64_t earliest);

  int64_t rowSlot(int64_t t, bool act) const;
  // Row commands take slots of their own bus (DeviceConfig::oneRowCommandPerCycle on separate buses).
  bool rowBusSlotted() const { return m_cfg.separateRowColumnBus && m_cfg.oneRowCommandPerCycle; }
  static constexpr int64_t kSlotWindow = 256;
  int64_t colSlot(int64_t t, bool bufferPath) const;
  int64_t bufferFrontier() const;
  void take(int64_t t, bool row, bool act, bool bufferPath = false);
  void complete(int64_t t) { m_maxCompletion = std::max(m_maxCompletion, t); }
  void record(int bank, Op op, int64_t t, int64_t dur);

  // Ranks, pseudo-channels and bank groups a bank mask touches (one-entry cache: streams repeat their masks).
  struct MaskInfo {
    uint64_t mask = 0;
    uint32_t ranks = 0, pchs = 0;
    std::array<uint32_t, 16> bg{};
  };
  const MaskInfo& info(uint64_t mask) const;
  mutable MaskInfo m_info;
  std::vector<MaskInfo> m_single;  // per bank

  // Calls f(bank) for every set bit of m, lowest first.
  template <typename F>
  static void forBits(uint64_t m, F&& f) {
    while (m) {
      f(std::countr_zero(m));
      m &= m - 1;
    }
  }
  int pchOf(int b) const { return b / m_banksPerPch; }
  int rankOf(int b) const { return b / m_banksPerRank; }  // global rank index pch*ranks + rank
  int bgOf(int b) const { return (b % m_banksPerRank) / m_cfg.banksPerBankGroup; }

  const DeviceConfig& m_cfg;
  int m_banksPerRank, m_banksPerPch, m_nBanks;
  int m_colShift;  // log2 of the row length in columns, -1 when not a power of two
  std::vector<BankState> m_banks;
  std::vector<RankState> m_ranks;
  std::vector<PseudoChannelState> m_pchs;
  std::vector<RefreshUnit> m_refresh;
  SlotSet m_used;     // occupied command slots (single command bus only), pruned behind the frontier
  SlotSet m_rowUsed;  // occupied row-bus slots (separate buses with oneRowCommandPerCycle only), likewise
  int64_t m_lastAct = -1, m_lastCol = -1, m_lastMac = -(1 << 30);
  int64_t m_prevCol = -1;     // the column command before m_lastCol
  int64_t m_lastBufCol = -1;  // DeviceConfig::macOwnDataPath: the buffer moves' own column frontier
  int64_t m_actGate = 0;      // BarrierMode::Window: ACTs of the current barrier group not before this
  bool m_groupEnd = false;    // the command being issued is the last of its barrier group
  int64_t m_floor = 0, m_colFloor = 0, m_maxCompletion = 0;
  int64_t m_opReady = 0;  // DeviceConfig::pimOpsByAddress: the arithmetic's spacing on the channel (nBL)
  // DeviceConfig::allBankRowsByChannel: the channel's own hold on an all-bank PREA and ACTAB
  int64_t m_preaReady = 0, m_actabReady = 0;
  // BarrierMode::Drain: the channel takes a barrier the cycle after its last request left (its last command
  // issued), and the barrier takes that cycle alone (it is neither a row nor a column command, so nothing
  // issues beside it): the next request's commands issue 2 cycles after the last one's.
  static constexpr int64_t kDrainBarrierCycles = 2;
  // DeviceConfig::allBankRowsByChannel: an HBM3 ACT takes two command cycles; a PREA follows it after both.
  static constexpr int64_t kActCycles = 2;
  int64_t m_planMax = INT64_MIN;  // latest planned issue time since the last snapshot (fast-forward)
  int m_phase = -1;
  // serveNext(): the fed vectors, the part expanded (commands, their request position, -1 for barriers,
  // the end of the run of host or of PIM requests each belongs to, 0 outside runs), what is served, and the
  // request being issued (its arrival, its ACT and column cycles, -1 until placed).
  const std::vector<int64_t>* m_arrivals = nullptr;
  std::vector<int64_t>* m_departures = nullptr;
  const std::vector<size_t>* m_sent = nullptr;
  size_t m_requestBuffer = SIZE_MAX;
  bool m_writeMode = false;  // serveNext(): the controller drains its write buffer (bufferHostRequests())
  struct Stepper {
    std::vector<Command> cmds;
    std::vector<int64_t> request;
    std::vector<size_t> runEnd;
    std::vector<char> served;
    size_t next = 0;
    int64_t requests = 0;        // of the parts begun so far
    std::vector<size_t> window;  // nextServed(): the buffered PIM requests, oldest first
    std::vector<char> hit;       // nextServed(): per buffered request, a row hit
    std::array<std::vector<size_t>, 2> host, buffered;  // host reads, writes: all of the part; buffered ones
    std::array<size_t, 2> hostNext{};                   // the first of `host` not served
  } m_step;
  int64_t m_request = -1, m_arrival = 0, m_requestAct = -1, m_requestCol = -1;
  bool m_fastForward;
  TraceWindow m_tw;
  int m_traceChannel;
  std::vector<TraceEvent> m_trace;
};

}  // namespace pim::sim
