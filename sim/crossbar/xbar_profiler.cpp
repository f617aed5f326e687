// SPDX-License-Identifier: Apache-2.0
// The crossbar profiler (issue 19; ../shared/specs/crossbar.md, "Profiler timing rules"). Each rule below is
// PIMCOMP-NN's evaluation/ModelEvaluation.cpp (EvaluateRecursionSingleInstructionGroup), named by its
// variables where that helps a reader compare: time = LATENCY_single, prepTimeline = preparation_timeline,
// prepSinceMvm = preparation_time_single.
//
// Execution patterns (tcad: III-C; TimingParams::outOfOrder and ::synchronous). PIMCOMP-NN's evaluator knows
// only out-of-order cores and synchronous transfers, the defaults, which take exactly its paths below. The
// other two patterns are PIMScope's, defined so that each changes one thing:
// - In-order (outOfOrder = false), "all arrays of a core are loaded, then driven together": there is no
//   preparation timeline running ahead. A preparation instruction (LD; LMV/LLDI tagged MAIN) starts at the
//   core time, which is at or after the end of every MVM issued before it (an MVM sets the core time to its
//   end and MVM starts only grow within an IG), and moves the core time, with the preparation timeline, to
//   its end. The MVM rule is unchanged: it starts at or after the preparation timeline, so after every
//   preparation issued before it, while MVMs with no preparation between them still overlap at the issue
//   interval. An LD's whole latency is memory time and a MAIN copy's is vector time (as PIMCOMP-NN counts the
//   copies on the core time); preparation already on the core time is not added again after a
//   synchronisation (prepSinceMvm stays 0).
// - Asynchronous (synchronous = false), tcad's "only send is emitted, recv completed by hardware": the SEND
//   never waits. From the sender's time t_s it takes the bus and the HyperTransport as a rendezvous does
//   (transfer T, the SEND's length, the sender's chip), moves the sender to t_s + T (transfer time, no sync
//   time) and the data arrives at A = t_s + T. The paired RECV completes at max(t_r, A) and pays no transfer;
//   its wait is the receiver's sync time. The synchronisation time the MVM rule reads becomes t_s on the
//   sender and max(t_r, t_s) on the receiver (where a rendezvous would have put both), so MVMs overlap a
//   transfer as they do after a rendezvous. Visiting order: a SEND is timed when reached; a RECV reached
//   before its SEND suspends its core (the next core is entered) until the SEND resumes it, the receiver's
//   rest then running before the sender's, as a partner's does after a rendezvous. Only RECVs suspend and a
//   SEND never does, so the IG ends with every list done unless RECVs wait on each other in a cycle (a
//   deadlock on any hardware), which throws as an unpaired transfer does.
#include "sim/crossbar/xbar_profiler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace pim::xbar {

namespace {

std::int64_t ceilNs(double bytes, double gbps, double ghz) {
  return static_cast<std::int64_t>(std::ceil(bytes / (gbps / ghz)));
}

void requirePositive(double value, const char* field) {
  if (!(value > 0)) throw std::invalid_argument(std::string("TimingParams.") + field + " must be positive");
}

}  // namespace

TimingParams pimcompNn() { return TimingParams{}; }

TimingParams intended(int precisionBits, int coresPerChip) {
  if (precisionBits <= 0) throw std::invalid_argument("intended(): precisionBits must be positive");
  TimingParams p;
  p.mvmLatencyNs = MvmLatencyParts{}.latencyNs(precisionBits);
  p.coresPerChip = coresPerChip;
  validate(p);
  return p;
}

TimingParams timingParams(TimingModel model, int precisionBits, int coresPerChip) {
  return model == TimingModel::PimcompNn ? pimcompNn() : intended(precisionBits, coresPerChip);
}

void validate(const TimingParams& p) {
  requirePositive(double(p.mvmLatencyNs), "mvmLatencyNs");
  requirePositive(double(p.mvmIssueIntervalNs), "mvmIssueIntervalNs");
  requirePositive(p.elementBits, "elementBits");
  requirePositive(double(p.vectorBytesPerStep), "vectorBytesPerStep");
  requirePositive(double(p.vectorStepNs), "vectorStepNs");
  requirePositive(p.localMemoryGBps, "localMemoryGBps");
  requirePositive(p.globalMemoryGBps, "globalMemoryGBps");
  requirePositive(p.busGBps, "busGBps");
  requirePositive(p.hyperTransportGBps, "hyperTransportGBps");
  requirePositive(p.coresPerChip, "coresPerChip");
  requirePositive(p.frequencyGHz, "frequencyGHz");
}

Profiler::Profiler(int cores, TimingParams params) : m_params(params), m_cores(cores) {
  if (cores <= 0) throw std::invalid_argument("Profiler: cores must be positive");
  validate(m_params);
  const int chips = (cores + m_params.coresPerChip - 1) / m_params.coresPerChip;
  m_state.resize(std::size_t(cores));
  m_coreProfiles.resize(std::size_t(cores));
  m_chipProfiles.resize(std::size_t(chips));
  m_bus.resize(std::size_t(chips));
  m_globalMemory.resize(std::size_t(chips));
}

bool Profiler::group(const InstructionGroup& ig) {
  if (ig.cores.size() > std::size_t(m_cores))
    throw std::invalid_argument("crossbar profiler: IG " + std::to_string(m_groupIndex + 1) + " has " +
                                std::to_string(ig.cores.size()) + " core lists for " +
                                std::to_string(m_cores) + " cores");
  ++m_groupIndex;
  ++m_totals.instructionGroups;
  m_ig = &ig;
  m_frames.clear();
  m_pending.clear();
  m_arrivals.clear();
  m_readers.clear();
  m_nextFreshCore = 0;
  // PIMCOMP-NN's recursion, unrolled: every call in it is the last thing its caller does, except at a paired
  // SEND/RECV, which runs the partner's rest and then its own. A stack of pending calls replays that order.
  if (!ig.cores.empty()) pushNextFreshCore();
  while (!m_frames.empty()) {
    const Frame frame = m_frames.back();
    m_frames.pop_back();
    runFrame(frame);
  }
  if (!m_pending.empty() || !m_arrivals.empty()) throwUnpaired();
  if (!m_readers.empty()) throwUnwritten();
  forgetSettledReservations();
  m_ig = nullptr;
  return true;
}

void Profiler::pushNextFreshCore() {
  // The recursion enters "the next unvisited core after this one"; cores are entered in index order, so the
  // visited ones always form a prefix and that core is simply the first one past it.
  if (m_nextFreshCore >= m_cores) return;
  m_frames.push_back({m_nextFreshCore, 0});
  ++m_nextFreshCore;
}

void Profiler::runFrame(Frame frame) {
  const int core = frame.core;
  if (std::size_t(core) >= m_ig->cores.size()) {  // no list: an idle core
    pushNextFreshCore();
    return;
  }
  const std::vector<Instruction>& list = m_ig->cores[std::size_t(core)];
  for (std::size_t k = frame.index; k < list.size(); ++k) {
    const Instruction& inst = list[k];
    if (inst.op == Opcode::Send || inst.op == Opcode::Recv) {
      if (!m_params.synchronous) {
        const Flow flow = inst.op == Opcode::Send ? asyncSend(core, k) : asyncRecv(core, k);
        if (flow == Flow::Stop) return;
        continue;
      }
      const auto it = m_pending.find(inst.comm);
      if (it == m_pending.end()) {  // first half: suspend here and let the next core run
        m_pending.emplace(inst.comm, PendingComm{core, k});
        pushNextFreshCore();
        return;
      }
      const PendingComm partner = it->second;
      m_pending.erase(it);
      if (partner.core == core) throwPairing(core, inst.comm, "pairs a core with itself");
      rendezvous(core, k, partner);
      m_frames.push_back({core, k + 1});                      // then this core's rest
      m_frames.push_back({partner.core, partner.index + 1});  // the partner's rest first
      return;
    }
    if (inst.op == Opcode::Ld && awaitWrite(core, k)) return;
    execute(core, inst);
    if (k + 1 == list.size()) endOfList(core);
    if (inst.op == Opcode::St && resumeReaders(core, k)) return;
  }
  pushNextFreshCore();
}

void Profiler::execute(int core, const Instruction& inst) {
  if (inst.elements < 0 || inst.crossbars < 0 || (inst.op == Opcode::Mvmul && inst.ag < 0))
    throw std::invalid_argument("crossbar profiler: IG " + std::to_string(m_groupIndex) + ", core " +
                                std::to_string(core) + ": malformed " + std::string(opcodeName(inst.op)) +
                                " (negative length or crossbars, or MVMUL without an AG)");
  switch (inst.op) {
    case Opcode::Mvmul:
      return mvmul(core, inst);
    case Opcode::Vvadd:
    case Opcode::Vvmax:
    case Opcode::Vrelu:
    case Opcode::Vtanh:
    case Opcode::Vsigmoid:
      return vector(core, inst);
    case Opcode::Lmv:
    case Opcode::Lldi:
      return copy(core, inst);
    case Opcode::Ld:
      return load(core, inst);
    case Opcode::St:
      return store(core, inst);
    case Opcode::Send:
    case Opcode::Recv:
      return;  // handled by runFrame
  }
}

void Profiler::mvmul(int core, const Instruction& inst) {
  CoreState& s = m_state[std::size_t(core)];
  CoreProfile& p = m_coreProfiles[std::size_t(core)];
  if (std::size_t(inst.ag) >= m_agLastStart.size()) m_agLastStart.resize(std::size_t(inst.ag) + 1, 0);
  std::int64_t& agStart = m_agLastStart[std::size_t(inst.ag)];
  const std::int64_t latency = m_params.mvmLatencyNs;
  std::int64_t share = latency;
  if (s.lastMvmGroup == m_groupIndex) {
    // A later MVMUL of the IG: after the core's issue interval (or the preparation since the last start,
    // when longer) and after the same AG's previous MVMUL (0 reads as "never", as in PIMCOMP-NN).
    const std::int64_t previous = s.lastMvmStart;
    const std::int64_t interval = std::max(m_params.mvmIssueIntervalNs, s.prepTimeline - s.lastMvmStart);
    agStart = (agStart != 0 && agStart + latency > s.lastMvmStart + interval) ? agStart + latency
                                                                              : s.lastMvmStart + interval;
    if (agStart < s.lastSync) agStart = s.lastSync + s.prepSinceMvm;
    s.lastMvmStart = agStart;
    share = std::min(agStart - previous, latency);
    s.time = agStart + latency;  // set, not raised: PIMCOMP-NN's rule even when the core was further on
  } else {
    // The IG's first MVMUL starts at the preparation timeline but adds one latency to the core time.
    agStart = s.prepTimeline;
    s.lastMvmStart = agStart;
    s.time += latency;
    s.lastMvmGroup = m_groupIndex;
  }
  s.prepSinceMvm = 0;
  p.mvmNs += share;
  p.crossbarActivations += inst.crossbars;
  ++p.counts.mvmul;
  charge(inst, core, Share::Mvm, share);
  if (NodeProfile* n = node(inst)) ++n->counts.mvmul;
  attribute(inst, agStart, s.time);
}

std::int64_t Profiler::vectorNs(std::int64_t elements) const {
  const std::int64_t bitsPerStep = m_params.vectorBytesPerStep * 8;
  return (elements * m_params.elementBits + bitsPerStep - 1) / bitsPerStep * m_params.vectorStepNs;
}

void Profiler::vector(int core, const Instruction& inst) {
  CoreState& s = m_state[std::size_t(core)];
  CoreProfile& p = m_coreProfiles[std::size_t(core)];
  const std::int64_t duration = vectorNs(inst.elements);
  const std::int64_t start = s.time;
  bool costsTime = true;                     // advances the core time
  bool counted = inst.stage == Stage::Post;  // enters PIMCOMP-NN's VEC share
  NodeProfile* n = node(inst);
  if (inst.op == Opcode::Vvadd) {
    costsTime = inst.stage == Stage::MainA || inst.stage == Stage::MainB || inst.stage == Stage::MainC ||
                inst.stage == Stage::Post;
    counted = inst.stage == Stage::MainC || inst.stage == Stage::Post;
    if (inst.stage == Stage::MainC) s.lastSync += duration;
    ++p.counts.vvadd;
    if (n) ++n->counts.vvadd;
  } else {
    ++p.counts.otherVector;
    if (n) ++n->counts.otherVector;
  }
  p.vfuBusyNs += duration;
  if (costsTime) s.time += duration;
  if (costsTime && counted) {
    p.vectorNs += duration;
    charge(inst, core, Share::Vector, duration);
  }
  attribute(inst, start, s.time);
}

void Profiler::copy(int core, const Instruction& inst) {
  CoreState& s = m_state[std::size_t(core)];
  CoreProfile& p = m_coreProfiles[std::size_t(core)];
  // Fractional bytes are kept here (PIMCOMP-NN computes LMV/LLDI lengths in double, LD/ST/SEND in int).
  const double bytes = double(inst.elements) * double(m_params.elementBits) / 8;
  const std::int64_t pass = ceilNs(bytes, m_params.localMemoryGBps, m_params.frequencyGHz);
  const std::int64_t duration = inst.op == Opcode::Lmv ? 2 * pass : pass;  // LMV reads and writes
  NodeProfile* n = node(inst);
  p.copyBusyNs += duration;
  ++p.counts.copy;
  if (n) ++n->counts.copy;
  if (inst.stage == Stage::Main && m_params.outOfOrder) {  // prepares an MVMUL input, ahead on its timeline
    const std::int64_t start = s.prepTimeline;
    s.prepSinceMvm += duration;
    s.prepTimeline += duration;
    attribute(inst, start, s.prepTimeline);
    return;
  }
  // In order, a MAIN copy too waits for the core (preparation never runs behind it) and becomes the new
  // preparation timeline, so that the next MVM waits for it.
  const std::int64_t start = inst.stage == Stage::Main ? std::max(s.time, s.prepTimeline) : s.time;
  s.time = start + duration;
  if (inst.stage == Stage::Main) s.prepTimeline = s.time;
  p.vectorNs += duration;
  charge(inst, core, Share::Vector, duration);
  attribute(inst, start, s.time);
}

std::int64_t Profiler::globalMemoryAccess(int core, const Instruction& inst, std::int64_t from) {
  CoreProfile& p = m_coreProfiles[std::size_t(core)];
  const std::int64_t bytes = bytesOf(inst);
  const std::int64_t needed = ceilNs(double(bytes), m_params.globalMemoryGBps, m_params.frequencyGHz);
  const int chip = chipOf(core);
  p.loadStoreBusyNs += needed;
  ++p.counts.memory;
  m_chipProfiles[std::size_t(chip)].globalMemoryBusyNs += needed;
  (inst.op == Opcode::Ld ? m_totals.loadBytes : m_totals.storeBytes) += bytes;
  if (NodeProfile* n = node(inst)) ++n->counts.memory;
  return m_globalMemory[std::size_t(chip)].reserve(from, needed);
}

void Profiler::rendezvous(int core, std::size_t index, const PendingComm& partner) {
  const Instruction& inst = m_ig->cores[std::size_t(core)][index];
  const Instruction& partnerInst = m_ig->cores[std::size_t(partner.core)][partner.index];
  CoreState& a = m_state[std::size_t(core)];
  CoreState& b = m_state[std::size_t(partner.core)];
  const std::int64_t startA = a.time, startB = b.time;
  // Full synchronisation: the earlier core waits for the later one.
  const std::int64_t syncA = std::max<std::int64_t>(0, b.time - a.time);
  const std::int64_t syncB = std::max<std::int64_t>(0, a.time - b.time);
  a.time = b.time = std::max(a.time, b.time);
  a.lastSync = a.time;
  b.lastSync = b.time;
  // The arriving half's length and chip decide the transfer (PIMCOMP-NN reads only the current instruction).
  const std::int64_t bytes = bytesOf(inst);
  const std::int64_t transfer = transferNs(core, partner.core, bytes, a.time);
  a.time += transfer;
  b.time += transfer;
  m_totals.commBytes += bytes;
  const int cores[2] = {core, partner.core};
  const std::int64_t syncs[2] = {syncA, syncB};
  const std::int64_t starts[2] = {startA, startB};
  const Instruction* halves[2] = {&inst, &partnerInst};
  for (int i = 0; i < 2; ++i) chargeHalf(cores[i], *halves[i], bytes, syncs[i], transfer, starts[i]);
}

std::int64_t Profiler::transferNs(int core, int peer, std::int64_t bytes, std::int64_t from) {
  const int chip = chipOf(core), peerChip = chipOf(peer);
  const std::int64_t busNs = ceilNs(double(bytes), m_params.busGBps, m_params.frequencyGHz);
  std::int64_t transfer = m_bus[std::size_t(chip)].reserve(from, busNs);
  m_chipProfiles[std::size_t(chip)].busBusyNs += busNs;
  if (chip != peerChip) {
    // int += double in PIMCOMP-NN: the HyperTransport term is added, then the sum truncated.
    const double htNs = double(bytes) / (m_params.hyperTransportGBps / m_params.frequencyGHz);
    transfer = static_cast<std::int64_t>(double(transfer) + htNs);
    m_chipProfiles[std::size_t(chip)].hyperTransportBusyNs += static_cast<std::int64_t>(htNs);
    m_chipProfiles[std::size_t(peerChip)].hyperTransportBusyNs += static_cast<std::int64_t>(htNs);
    m_totals.interChipBytes += bytes;
  }
  return transfer;
}

Profiler::Flow Profiler::asyncSend(int core, std::size_t index) {
  const Instruction& inst = m_ig->cores[std::size_t(core)][index];
  if (inst.peer < 0 || inst.peer >= m_cores || inst.peer == core)
    throwPairing(core, inst.comm,
                 "SEND names no other core of the accelerator (peer " + std::to_string(inst.peer) + ")");
  if (m_arrivals.count(inst.comm)) throwPairing(core, inst.comm, "is carried by two SENDs");
  CoreState& s = m_state[std::size_t(core)];
  const std::int64_t start = s.time;
  const std::int64_t bytes = bytesOf(inst);
  const std::int64_t transfer = transferNs(core, inst.peer, bytes, start);
  s.lastSync = start;  // the sender's "rendezvous" is its own issue: it waits for nobody
  s.time += transfer;
  m_totals.commBytes += bytes;
  chargeHalf(core, inst, bytes, 0, transfer, start);
  m_arrivals.emplace(inst.comm, Arrival{core, index, start, s.time, bytes});
  const auto waiting = m_pending.find(inst.comm);
  if (waiting == m_pending.end()) return Flow::Continue;
  // The receiver got here first and is suspended at its RECV: it resumes there, before the sender's rest.
  const PendingComm receiver = waiting->second;
  m_pending.erase(waiting);
  m_frames.push_back({core, index + 1});
  m_frames.push_back({receiver.core, receiver.index});
  return Flow::Stop;
}

Profiler::Flow Profiler::asyncRecv(int core, std::size_t index) {
  const Instruction& inst = m_ig->cores[std::size_t(core)][index];
  const auto it = m_arrivals.find(inst.comm);
  if (it == m_arrivals.end()) {  // its SEND is not reached yet: wait for it, let the next core run
    if (!m_pending.emplace(inst.comm, PendingComm{core, index}).second)
      throwPairing(core, inst.comm, "is awaited by two RECVs");
    pushNextFreshCore();
    return Flow::Stop;
  }
  const Arrival data = it->second;
  m_arrivals.erase(it);
  const Instruction& send = m_ig->cores[std::size_t(data.core)][data.index];
  if (send.peer != core)
    throwPairing(core, inst.comm,
                 "RECV is on another core than its SEND names (" + std::to_string(send.peer) + ")");
  CoreState& s = m_state[std::size_t(core)];
  const std::int64_t start = s.time;
  const std::int64_t wait = std::max<std::int64_t>(0, data.arrivalNs - s.time);
  s.time += wait;
  s.lastSync = std::max(start, data.issueNs);
  chargeHalf(core, inst, data.bytes, wait, 0, start);
  return Flow::Continue;
}

void Profiler::chargeHalf(int core, const Instruction& inst, std::int64_t bytes, std::int64_t syncNs,
                          std::int64_t transferNs, std::int64_t start) {
  CoreProfile& p = m_coreProfiles[std::size_t(core)];
  p.commSyncNs += syncNs;
  p.commTransferNs += transferNs;
  p.commBytes += bytes;
  ++p.counts.communication;
  charge(inst, core, Share::Comm, syncNs + transferNs);
  if (NodeProfile* n = node(inst)) ++n->counts.communication;
  attribute(inst, start, m_state[std::size_t(core)].time);
  const std::vector<Instruction>& list = m_ig->cores[std::size_t(core)];
  if (&inst == &list.back()) endOfList(core);
}

void Profiler::endOfList(int core) {
  // Each IG's preparation starts from where the core stopped in the previous one.
  CoreState& s = m_state[std::size_t(core)];
  s.prepTimeline = s.time;
  s.prepSinceMvm = 0;
}

NodeProfile* Profiler::node(const Instruction& inst) {
  if (inst.node < 0) return nullptr;
  if (std::size_t(inst.node) >= m_nodes.size()) m_nodes.resize(std::size_t(inst.node) + 1);
  return &m_nodes[std::size_t(inst.node)];
}

void Profiler::attribute(const Instruction& inst, std::int64_t start, std::int64_t end) {
  NodeProfile* n = node(inst);
  if (!n) return;
  if (n->firstStartNs < 0 || start < n->firstStartNs) n->firstStartNs = start;
  n->lastFinishNs = std::max(n->lastFinishNs, end);
}

void Profiler::forgetSettledReservations() {
  // Every later request of a core starts at or after min(time, preparation timeline) as it stands between IGs
  // (both only grow, and an MVMUL sets the time past a start made in the same IG), so busy time before the
  // chip's minimum can no longer change a grant.
  std::vector<std::int64_t> horizon(m_bus.size(), std::numeric_limits<std::int64_t>::max());
  for (int c = 0; c < m_cores; ++c) {
    const CoreState& s = m_state[std::size_t(c)];
    std::int64_t& h = horizon[std::size_t(chipOf(c))];
    h = std::min({h, s.time, s.prepTimeline});
  }
  for (std::size_t chip = 0; chip < horizon.size(); ++chip) {
    m_bus[chip].forgetBefore(horizon[chip]);
    m_globalMemory[chip].forgetBefore(horizon[chip]);
  }
}

void Profiler::throwUnpaired() const {
  // Names the earliest half left over: a suspended one, or (asynchronous) a SEND whose RECV never came.
  PendingComm first{m_cores, 0};
  std::int64_t comm = 0;
  const auto consider = [&](int core, std::size_t index, std::int64_t c) {
    if (core < first.core || (core == first.core && index < first.index)) {
      first = {core, index};
      comm = c;
    }
  };
  for (const auto& [c, pending] : m_pending) consider(pending.core, pending.index, c);
  for (const auto& [c, data] : m_arrivals) consider(data.core, data.index, c);
  const Instruction& inst = m_ig->cores[std::size_t(first.core)][first.index];
  throw std::invalid_argument("crossbar profiler: IG " + std::to_string(m_groupIndex) + ", core " +
                              std::to_string(first.core) + ": " + std::string(opcodeName(inst.op)) +
                              " with comm index " + std::to_string(comm) +
                              " never meets its partner (missing from the IG, or the transfers deadlock)");
}

void Profiler::throwPairing(int core, std::int64_t comm, const std::string& what) const {
  throw std::invalid_argument("crossbar profiler: IG " + std::to_string(m_groupIndex) + ", core " +
                              std::to_string(core) + ": comm index " + std::to_string(comm) + " " + what);
}

void Profiler::charge(const Instruction& inst, int core, Share kind, std::int64_t ns) {
  NodeProfile* n = node(inst);
  if (!n) return;
  (kind == Share::Mvm      ? n->mvmNs
   : kind == Share::Vector ? n->vectorNs
   : kind == Share::Memory ? n->memoryNs
                           : n->commNs) += ns;
  const std::size_t at = std::size_t(inst.node) * std::size_t(m_cores) + std::size_t(core);
  if (m_nodeCoreNs.size() <= at) m_nodeCoreNs.resize(m_nodes.size() * std::size_t(m_cores));
  m_nodeCoreNs[at][std::size_t(kind)] += ns;
}

ProfileResult Profiler::result() const {
  ProfileResult r = m_totals;
  r.mvmLatencyNs = m_params.mvmLatencyNs;
  r.coresPerChip = m_params.coresPerChip;
  r.cores = m_coreProfiles;
  r.nodes = m_nodes;
  r.chips = m_chipProfiles;
  for (std::size_t c = 0; c < r.cores.size(); ++c) {
    CoreProfile& p = r.cores[c];
    p.endNs = m_state[c].time;
    r.totalNs = std::max(r.totalNs, p.endNs);
    r.counts.mvmul += p.counts.mvmul;
    r.counts.vvadd += p.counts.vvadd;
    r.counts.otherVector += p.counts.otherVector;
    r.counts.copy += p.counts.copy;
    r.counts.memory += p.counts.memory;
    r.counts.communication += p.counts.communication;
  }
  for (std::size_t n = 0; n < r.nodes.size(); ++n) {
    std::int64_t busiest = 0;
    for (std::size_t c = 0; c < r.cores.size(); ++c) {
      const std::size_t at = n * r.cores.size() + c;
      if (at >= m_nodeCoreNs.size()) break;
      const auto& t = m_nodeCoreNs[at];
      const std::int64_t sum = t[0] + t[1] + t[2] + t[3];
      if (sum <= busiest) continue;
      busiest = sum;
      NodeProfile& np = r.nodes[n];
      np.busiestCore = int(c);
      np.busiestMvmNs = t[0];
      np.busiestVectorNs = t[1];
      np.busiestMemoryNs = t[2];
      np.busiestCommNs = t[3];
    }
  }
  r.averageIgNs = r.instructionGroups > 0 ? double(r.totalNs) / double(r.instructionGroups) : 0.0;
  return r;
}

}  // namespace pim::xbar
