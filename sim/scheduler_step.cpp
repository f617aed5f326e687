// SPDX-License-Identifier: Apache-2.0
// ChannelScheduler fed request by request (sim/frontend.h): a part of the program expanded, and served one
// request at a time in the order the controller serves them, each no earlier than the frontend sent it.
#include <algorithm>
#include <bit>

#include "sim/scheduler.h"

namespace pim::sim {
namespace {
// The buffer a request waits in when fed: 1 for host reads and writes, 2 for PIM requests, 0 for what is not
// reordered (barriers, explicit row commands).
size_t runKind(const Command& c) {
  if (reorderable(c)) return 1;
  const OpClass k = opClass(c.op);
  return k == OpClass::ColRead || k == OpClass::ColWrite || k == OpClass::Buffer ? 2 : 0;
}
}  // namespace

void ChannelScheduler::feedRequests(const std::vector<int64_t>* arrivals, std::vector<int64_t>* departures,
                                    const std::vector<size_t>* sent) {
  m_arrivals = arrivals;
  m_departures = departures;
  m_sent = sent;
}

void ChannelScheduler::beginRequest(int64_t k) {
  m_request = k;
  m_arrival = m_arrivals ? (*m_arrivals)[size_t(k)] : 0;
  m_requestAct = m_requestCol = -1;
}

void ChannelScheduler::endRequest(const Command& c) {
  const bool host = c.op == Op::HOST_RD || c.op == Op::HOST_WR;
  if (m_departures)
    (*m_departures)[size_t(m_request)] = host && m_requestAct >= 0 ? m_requestAct : m_requestCol;
  m_arrival = 0;
}

int64_t ChannelScheduler::readyFloor(const Command& c) const {
  // What rowSlot() and colSlot() impose whatever the banks' timing.
  if (opClass(c.op) == OpClass::Buffer) return std::max({m_floor, m_colFloor, m_arrival});
  const int64_t open = m_banks[size_t(std::countr_zero(maskOf(c)))].openRow;
  if (open == int64_t(c.row)) return std::max({m_floor, m_colFloor, m_lastCol + 1, m_arrival});
  const int64_t row = std::max({m_floor, m_lastCol - kSlotWindow, m_arrival});
  return open >= 0 ? row : std::max(row, m_lastAct + 1);
}

int64_t ChannelScheduler::readyAt(const Command& c) const {
  if (opClass(c.op) == OpClass::Buffer) return planBuffer(c);
  const uint64_t mask = maskOf(c);
  const int64_t open = m_banks[size_t(std::countr_zero(mask))].openRow;
  if (open == int64_t(c.row)) return planCol(c, mask, opClass(c.op) == OpClass::ColRead);
  const bool allBank = isAllBankOp(c.op);
  if (open < 0) return planAct(mask, allBank, std::max(actGate(), m_arrival));
  const int64_t pre = planPre(mask, m_arrival, allBank);
  if (!m_cfg.rankByActivate) return pre;
  const int tRP = allBank ? m_cfg.pimPreToAct : m_cfg.tRP;
  return planAct(mask, allBank, std::max({actGate(), m_arrival, pre + tRP}));
}

void ChannelScheduler::beginPart(const ChannelProgram& part) {
  Stepper& s = m_step;
  s.cmds.clear();
  s.request.clear();
  s.runEnd.clear();
  for (const Block& b : part.blocks)
    for (int64_t it = 0; it < b.repeat; ++it)
      for (const Command& c0 : b.cmds)
        for (uint32_t k = 0; k < c0.repeat; ++k) {
          const bool barrier = opClass(c0.op) == OpClass::Barrier;
          s.cmds.push_back(addressed(c0, it, k));
          s.request.push_back(barrier ? -1 : s.requests++);
          s.runEnd.push_back(runKind(s.cmds.back()));  // their runs end below
        }
  // A run: consecutive requests of one kind (host, PIM) and phase; barriers and row commands end it.
  for (size_t i = s.cmds.size(); i-- > 0;) {
    if (!s.runEnd[i]) continue;
    const bool continues = i + 1 < s.cmds.size() && runKind(s.cmds[i + 1]) == s.runEnd[i] &&
                           s.cmds[i + 1].phase == s.cmds[i].phase;
    s.runEnd[i] = continues ? s.runEnd[i + 1] : i + 1;
  }
  for (auto& list : s.host) list.clear();
  for (size_t i = 0; i < s.cmds.size(); ++i)
    if (runKind(s.cmds[i]) == 1) s.host[opClass(s.cmds[i].op) == OpClass::ColWrite].push_back(i);
  s.hostNext = {0, 0};
  s.served.assign(s.cmds.size(), 0);
  s.next = 0;
}

bool ChannelScheduler::rowHit(const Command& c) const {
  const OpClass k = opClass(c.op);
  return (k == OpClass::ColRead || k == OpClass::ColWrite) &&
         m_banks[size_t(addressedBank(c))].openRow == int64_t(c.row);
}

void ChannelScheduler::bufferHostRequests(size_t sentBefore) {
  Stepper& s = m_step;
  // The buffered reads and writes of the run: the sent ones not served, up to the first that finds its
  // buffer full (the frontend sends in order, so nothing behind that one has arrived).
  size_t end = s.runEnd[s.next];
  for (size_t k = 0; k < 2; ++k) {
    const std::vector<size_t>& list = s.host[k];
    size_t& first = s.hostNext[k];
    while (first < list.size() && s.served[list[first]]) ++first;
    s.buffered[k].clear();
    for (size_t n = first; n < list.size() && list[n] < end; ++n) {
      const size_t j = list[n];
      if (s.served[j]) continue;
      if (!sent(j, sentBefore) || s.buffered[k].size() == m_requestBuffer) {
        end = j;
        break;
      }
      s.buffered[k].push_back(j);
    }
  }
  for (std::vector<size_t>& b : s.buffered)
    while (!b.empty() && b.back() >= end) b.pop_back();
  // Ramulator 2's write mode: on above 80 % of the write buffer's max_size (one less than it holds) or with
  // no read waiting; off again below 20 % once a read waits.
  const size_t reads = s.buffered[0].size(), writes = s.buffered[1].size(), maxSize = m_requestBuffer - 1;
  if (!m_writeMode)
    m_writeMode = writes * 10 > maxSize * 8 || reads == 0;
  else
    m_writeMode = !(writes * 10 < maxSize * 2 && reads != 0);
}

size_t ChannelScheduler::nextServed(size_t sentBefore) {
  Stepper& s = m_step;
  const size_t i = s.next;
  if (!s.runEnd[i]) return sent(i, sentBefore) ? i : SIZE_MAX;
  // The buffer: the sent requests among the oldest not served (a run keeps send order); host requests wait
  // in a read and a write buffer, of which the controller serves one at a time.
  const std::vector<size_t>* buffer = &s.window;
  if (reorderable(s.cmds[i])) {
    bufferHostRequests(sentBefore);
    buffer = &s.buffered[m_writeMode];
  } else {
    s.window.clear();
    for (size_t j = i; j < s.runEnd[i] && s.window.size() < m_requestBuffer; ++j) {
      if (s.served[j]) continue;
      if (!sent(j, sentBefore)) break;
      s.window.push_back(j);
    }
  }
  // The banks in which a buffered request hits the open row.
  uint64_t hitBanks = 0;
  s.hit.resize(buffer->size());
  for (size_t n = 0; n < buffer->size(); ++n) {
    const Command& c = s.cmds[(*buffer)[n]];
    s.hit[n] = rowHit(c);
    if (s.hit[n]) hitBanks |= 1ULL << addressedBank(c);
  }
  // The one ready first, the oldest of equals; a younger one that is no hit does not close (or, a buffer
  // move, delay) a bank another buffered request hits (the artifact's compare()).
  size_t pick = SIZE_MAX;
  int64_t earliest = INT64_MAX;
  for (size_t n = 0; n < buffer->size(); ++n) {
    const size_t j = (*buffer)[n];
    const Command& c = s.cmds[j];
    if (n > 0 && !s.hit[n] && (hitBanks >> addressedBank(c) & 1)) continue;
    m_arrival = m_arrivals ? (*m_arrivals)[size_t(s.request[j])] : 0;
    if (readyFloor(c) >= earliest) continue;  // cannot go before the older pick
    const int64_t t = readyAt(c);
    if (t < earliest) earliest = t, pick = j;
  }
  m_arrival = 0;
  return pick;
}

int64_t ChannelScheduler::serveNext(size_t sentBefore, int64_t stopAfter) {
  Stepper& s = m_step;
  for (;;) {
    while (s.next < s.cmds.size() && s.served[s.next]) ++s.next;
    if (s.next == s.cmds.size()) return kPartDone;
    if (s.request[s.next] < 0) {  // a barrier goes along
      m_groupEnd = false;
      issue(s.cmds[s.next]);
      s.served[s.next] = 1;
      continue;
    }
    const size_t i = nextServed(sentBefore);
    if (i == SIZE_MAX) return kBlocked;
    s.served[i] = 1;
    size_t n = s.next;  // the group ends when everything before the next barrier is served
    while (n < s.cmds.size() && s.served[n]) ++n;
    m_groupEnd = n < s.cmds.size() && s.request[n] < 0;
    const int64_t k = s.request[i];
    beginRequest(k);
    issue(s.cmds[i]);
    endRequest(s.cmds[i]);
    if (overdue(stopAfter)) return kStopped;
    return k;
  }
}

}  // namespace pim::sim
