// SPDX-License-Identifier: Apache-2.0
// The crossbar profiler's LD and ST (PIMCOMP-NN's rules, xbar_profiler.cpp's header) and the order of data
// through global memory, which PIMCOMP-NN's evaluator does not need (its programs move data between cores by
// SEND/RECV only). A program that spills (the LL schedule of the intended timing) hands data from one core to
// another, or back to itself, through global memory: an ST writes it and a later LD reads it. The LD then
// starts no earlier than that ST has finished (Instruction::globalWrite pairs them), on the preparation
// timeline as any LD. Visiting order: an LD reached before its ST suspends its core (the next core is
// entered) until the ST resumes it, the reader's rest then running before the writer's, as a RECV waits for
// its SEND in the asynchronous pattern. The compiler emits every ST before the LDs that read it, so in an
// order every core's list follows; the IG ends with every list done unless an LD reads a write no ST of
// this IG or an earlier one makes, which throws.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/crossbar/xbar_profiler.h"

namespace pim::xbar {

std::int64_t Profiler::writtenAt(const Instruction& load) const {
  return load.globalWrite < 0 ? 0 : m_writeDone[std::size_t(load.globalWrite)];
}

bool Profiler::awaitWrite(int core, std::size_t index) {
  const std::int64_t write = m_ig->cores[std::size_t(core)][index].globalWrite;
  if (write < 0) return false;
  if (std::size_t(write) < m_writeDone.size() && m_writeDone[std::size_t(write)] >= 0) return false;
  m_readers.emplace(write, PendingComm{core, index});
  pushNextFreshCore();
  return true;
}

bool Profiler::resumeReaders(int core, std::size_t index) {
  const std::int64_t write = m_ig->cores[std::size_t(core)][index].globalWrite;
  if (write < 0) return false;
  const auto [first, last] = m_readers.equal_range(write);
  if (first == last) return false;
  m_frames.push_back({core, index + 1});
  // Resumed in the order they were suspended: the frame pushed last runs first.
  std::vector<PendingComm> readers;
  for (auto it = first; it != last; ++it) readers.push_back(it->second);
  std::sort(readers.begin(), readers.end(), [](const PendingComm& a, const PendingComm& b) {
    return a.core != b.core ? a.core > b.core : a.index > b.index;
  });
  for (const PendingComm& r : readers) m_frames.push_back({r.core, r.index});
  m_readers.erase(first, last);
  return true;
}

void Profiler::throwUnwritten() const {
  const auto& [write, reader] =
      *std::min_element(m_readers.begin(), m_readers.end(),
                        [](const auto& a, const auto& b) { return a.second.core < b.second.core; });
  throw std::invalid_argument("crossbar profiler: IG " + std::to_string(m_groupIndex) + ", core " +
                              std::to_string(reader.core) + ": LD reads global-memory write " +
                              std::to_string(write) + ", which no ST of this IG or an earlier one makes");
}

void Profiler::load(int core, const Instruction& inst) {
  CoreState& s = m_state[std::size_t(core)];
  const std::int64_t written = writtenAt(inst);
  if (!m_params.outOfOrder) {
    // In order: the load starts once every instruction before it has finished (the preparation timeline
    // never passes the core time here) and the core waits for all of it.
    const std::int64_t start = std::max({s.time, s.prepTimeline, written});
    s.time = start + globalMemoryAccess(core, inst, start);
    s.prepTimeline = s.time;
    m_coreProfiles[std::size_t(core)].memoryNs += s.time - start;
    charge(inst, core, Share::Memory, s.time - start);
    attribute(inst, start, s.time);
    return;
  }
  const std::int64_t start = std::max(s.prepTimeline, written);
  const std::int64_t latency = globalMemoryAccess(core, inst, start);
  s.prepTimeline = start + latency;
  std::int64_t wait = 0;  // the core waits only when preparation overtakes it
  if (s.prepTimeline > s.time) {
    wait = s.prepTimeline - s.time;
    s.time = s.prepTimeline;
  }
  // The preparation an MVM after a synchronisation waits for (lastSync + prepSinceMvm) ends no earlier than
  // the data this LD waited for arrives.
  s.prepSinceMvm = std::max(s.prepSinceMvm, written - s.lastSync) + latency;
  m_coreProfiles[std::size_t(core)].memoryNs += wait;
  charge(inst, core, Share::Memory, wait);
  attribute(inst, start, s.prepTimeline);
}

void Profiler::store(int core, const Instruction& inst) {
  CoreState& s = m_state[std::size_t(core)];
  const std::int64_t start = s.time;
  const std::int64_t latency = globalMemoryAccess(core, inst, start);
  s.time += latency;
  m_coreProfiles[std::size_t(core)].memoryNs += latency;
  charge(inst, core, Share::Memory, latency);
  attribute(inst, start, s.time);
  if (inst.globalWrite < 0) return;
  if (std::size_t(inst.globalWrite) >= m_writeDone.size())
    m_writeDone.resize(std::size_t(inst.globalWrite) + 1, -1);
  m_writeDone[std::size_t(inst.globalWrite)] = s.time;
}

}  // namespace pim::xbar
