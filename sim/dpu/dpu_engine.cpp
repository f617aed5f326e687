// SPDX-License-Identifier: Apache-2.0
#include "sim/dpu/dpu_engine.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pim::sim::dpu {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMinSparseRounds = 8;

// Where a tasklet is in its program: a stack of (sequence, position, trips left) from the outermost loop in.
struct Frame {
  const std::vector<Step>* seq = nullptr;
  std::size_t at = 0;
  std::int64_t tripsLeft = 1;
};

struct Tasklet {
  std::vector<Frame> stack;
  std::int64_t issueLeft = 0;  // instructions left of the current Issue step
  double readyAt = 0;          // earliest cycle of its next instruction
  bool waiting = false;        // at a barrier, or at a handshake its predecessor has not passed
  bool done = false;
  bool atHandshake = false;     // waiting at a handshake (not a barrier)
  std::int64_t handshakes = 0;  // handshakes passed

  // The step to execute, after entering loops and leaving finished ones; nullptr at the program's end.
  const Step* current() {
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.at >= f.seq->size()) {
        if (--f.tripsLeft > 0) {
          f.at = 0;
          continue;
        }
        stack.pop_back();
        if (!stack.empty()) ++stack.back().at;
        continue;
      }
      const Step& s = (*f.seq)[f.at];
      if (s.kind == Step::Kind::Loop) {
        if (s.count <= 0 || s.body.empty()) {
          ++f.at;
        } else {
          stack.push_back({&s.body, 0, s.count});
        }
        continue;
      }
      if (s.kind == Step::Kind::Issue && s.count <= 0) {
        ++f.at;
        continue;
      }
      if (s.kind == Step::Kind::Issue && issueLeft == 0) issueLeft = s.count;
      return &s;
    }
    return nullptr;
  }
  void advance() {
    issueLeft = 0;
    ++stack.back().at;
  }
};

void check(const std::vector<Step>& seq) {
  for (const Step& s : seq) {
    if (s.kind == Step::Kind::Dma && (s.bytes < 8 || s.bytes > 2048 || s.bytes % 8 != 0))
      throw std::invalid_argument("DPU kernel: a DMA of " + std::to_string(s.bytes) +
                                  " B; the SDK allows multiples of 8 from 8 to 2,048 B");
    if (s.kind == Step::Kind::Loop) check(s.body);
  }
}

// The same program with consecutive instruction runs merged and loops of plain instructions flattened into
// one run: the engine does not tell instructions apart, so the timing is the same, and longer runs let whole
// revolver rounds be taken at once.
std::vector<Step> merged(const std::vector<Step>& seq) {
  std::vector<Step> out;
  for (const Step& s : seq) {
    Step m = s;
    if (s.kind == Step::Kind::Loop) {
      m.body = merged(s.body);
      if (m.count <= 0 || m.body.empty()) continue;
      if (m.body.size() == 1 && m.body[0].kind == Step::Kind::Issue)
        m = Step::issue(m.count * m.body[0].count);
    }
    if (m.kind == Step::Kind::Issue && m.count <= 0) continue;
    if (m.kind == Step::Kind::Issue && !out.empty() && out.back().kind == Step::Kind::Issue) {
      out.back().count += m.count;
    } else {
      out.push_back(std::move(m));
    }
  }
  return out;
}

class Engine {
 public:
  Engine(const DpuConfig& cfg, const DpuKernel& k) : m_cfg(cfg), m_tasklets(k.tasklets.size()) {
    m_run.taskletEnd.assign(k.tasklets.size(), 0);
    for (std::size_t t = 0; t < k.tasklets.size(); ++t) {
      m_tasklets[t].stack.push_back({&k.tasklets[t], 0, 1});
      settle(t, 0);
    }
  }

  DpuRun run() {
    double now = 0;
    std::size_t next = 0;  // round robin: the tasklet after the last one that issued goes first
    const std::size_t n = m_tasklets.size();
    while (m_live > 0) {
      // Rounds are tried with a back-off: a failed try costs a scan of the tasklets (when it is tried only
      // changes how fast the simulation runs, never its result).
      if (m_cfg.batchRounds && --m_untilTry <= 0) {
        const Rounds r = takeRounds(now, next);
        if (r == Rounds::Taken || (r == Rounds::TooFewIssuing && takeSparseRounds(now, next))) {
          m_backoff = 1;
          m_untilTry = 0;
          continue;
        }
        m_backoff = std::min(m_backoff * 2, 64);
        m_untilTry = m_backoff;
      }
      std::size_t pick = n;
      double soonest = kNever;
      for (std::size_t i = 0, t = next % n; i < n; ++i, t = t + 1 == n ? 0 : t + 1) {
        const Tasklet& tk = m_tasklets[t];
        if (tk.done || tk.waiting) continue;
        if (tk.readyAt <= now) {
          pick = t;
          break;
        }
        soonest = std::min(soonest, tk.readyAt);
      }
      if (pick == n) {
        if (soonest == kNever)
          throw std::logic_error(
              "DPU kernel: every live tasklet waits (a barrier or handshake no one reaches)");
        now = std::ceil(soonest);  // the pipeline idles until a tasklet is ready
        continue;
      }
      execute(pick, now);
      next = pick + 1;
      now += 1;  // one instruction issued per cycle
    }
    m_run.cycles = *std::max_element(m_run.taskletEnd.begin(), m_run.taskletEnd.end());
    return m_run;
  }

 private:
  // The tasklets in a run of plain instructions and ready by their turn (at least the gap of them) issue once
  // per round, in the same order, until one nears the end of its run or another tasklet (blocked on a DMA, or
  // not yet ready) could be picked: those rounds are taken at once. Tasklets at a barrier stay there, as only
  // an arrival releases them. The last instruction of the shortest run is left to the loop above.
  enum class Rounds : std::uint8_t { Taken, TooFewIssuing, None };
  Rounds takeRounds(double& now, std::size_t& next) {
    const std::size_t n = m_tasklets.size();
    m_order.clear();
    m_othersBefore.clear();
    std::int64_t rounds = std::numeric_limits<std::int64_t>::max();
    double others = kNever;   // when the first tasklet outside the rounds could issue
    double between = kNever;  // ... of those since the last tasklet in the rounds, in round-robin order
    for (std::size_t i = 0, t = next % n; i < n; ++i, t = t + 1 == n ? 0 : t + 1) {
      Tasklet& tk = m_tasklets[t];
      if (tk.done || tk.waiting) continue;
      const Step* s = tk.current();
      if (s->kind == Step::Kind::Issue && tk.readyAt <= now + static_cast<double>(m_order.size())) {
        rounds = std::min(rounds, tk.issueLeft - 1);
        m_order.push_back(t);
        m_othersBefore.push_back(between);
        between = kNever;
      } else {
        others = std::min(others, tk.readyAt);
        between = std::min(between, tk.readyAt);
      }
    }
    const auto live = static_cast<std::int64_t>(m_order.size());
    if (live < m_cfg.sameTaskletGap) return Rounds::TooFewIssuing;
    if (others < kNever) rounds = std::min(rounds, static_cast<std::int64_t>((others - now) / live));
    if (rounds < 1) return takePartialRound(now, next) ? Rounds::Taken : Rounds::None;
    for (std::size_t j = 0; j < m_order.size(); ++j) {
      Tasklet& tk = m_tasklets[m_order[j]];
      tk.issueLeft -= rounds;
      tk.readyAt = now + static_cast<double>((rounds - 1) * live + static_cast<std::int64_t>(j)) +
                   m_cfg.sameTaskletGap;
    }
    m_run.instructions += rounds * live;
    now += static_cast<double>(rounds * live);
    next = m_order.back() + 1;
    return Rounds::Taken;
  }

  // Less than a round before another tasklet could issue: the round's tasklets (m_order, each ready by its
  // turn) still issue one instruction each, in order, one a cycle, as the loop above would pick them, until
  // a tasklet before one of them in round-robin order is ready by then (it would be picked first) or one
  // reaches the last instruction of its run (its step ends there).
  bool takePartialRound(double& now, std::size_t& next) {
    std::size_t taken = 0;
    for (std::size_t j = 0; j < m_order.size(); ++j) {
      Tasklet& tk = m_tasklets[m_order[j]];
      const double at = now + static_cast<double>(j);
      if (m_othersBefore[j] <= at || tk.issueLeft < 2 || tk.readyAt > at) break;
      --tk.issueLeft;
      tk.readyAt = at + m_cfg.sameTaskletGap;
      taken = j + 1;
    }
    if (taken == 0) return false;
    m_run.instructions += static_cast<std::int64_t>(taken);
    now += static_cast<double>(taken);
    next = m_order[taken - 1] + 1;
    return true;
  }

  // Fewer tasklets issuing than the gap: the pipeline idles between them, and each issues once every gap
  // cycles at its own slot. When their next slots are distinct and within one gap of the earliest, and every
  // other tasklet (blocked on a DMA, at a barrier, or later) stays out until the rounds end, the pattern
  // repeats exactly: those rounds are taken at once.
  bool takeSparseRounds(double& now, std::size_t& next) {
    const auto gap = static_cast<std::int64_t>(m_cfg.sameTaskletGap);
    m_slots.clear();
    double earliest = kNever, others = kNever;
    for (std::size_t t = 0; t < m_tasklets.size(); ++t) {
      Tasklet& tk = m_tasklets[t];
      if (tk.done || tk.waiting) continue;
      const Step* s = tk.current();
      const double slot = std::max(now, std::ceil(tk.readyAt));
      if (s->kind == Step::Kind::Issue) {
        m_slots.push_back({slot, t});
        earliest = std::min(earliest, slot);
      } else {
        others = std::min(others, tk.readyAt);
      }
    }
    if (m_slots.empty()) return false;
    std::int64_t rounds = std::numeric_limits<std::int64_t>::max();
    std::size_t kept = 0;
    for (const auto& [slot, t] : m_slots) {  // a slot outside the first period is another competitor
      if (slot >= earliest + static_cast<double>(gap)) {
        others = std::min(others, slot);
        continue;
      }
      rounds = std::min(rounds, m_tasklets[t].issueLeft - 1);
      m_slots[kept++] = {slot, t};
    }
    m_slots.resize(kept);
    // Slots are whole cycles in [earliest, earliest + gap): a tie (round robin decides) shows as a slot
    // seen twice, and the last slot is the largest (no sort: this runs at every tasklet's join and leave).
    m_slotTaken.assign(static_cast<std::size_t>(gap + 63) / 64, 0);
    std::size_t lastAt = 0;
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
      const auto offset = static_cast<std::size_t>(m_slots[i].first - earliest);
      const std::uint64_t bit = std::uint64_t{1} << (offset % 64);
      if (m_slotTaken[offset / 64] & bit) return false;
      m_slotTaken[offset / 64] |= bit;
      if (m_slots[i].first > m_slots[lastAt].first) lastAt = i;
    }
    const double last = m_slots[lastAt].first;
    if (others < kNever) {
      if (others <= last) return false;
      rounds = std::min(rounds, static_cast<std::int64_t>(std::floor((others - last - 1) / gap)) + 1);
    }
    if (rounds < kMinSparseRounds) return false;  // fewer are cheaper one by one
    for (const auto& [slot, t] : m_slots) {
      m_tasklets[t].issueLeft -= rounds;
      m_tasklets[t].readyAt = slot + static_cast<double>(rounds * gap);
    }
    m_run.instructions += rounds * static_cast<std::int64_t>(m_slots.size());
    now = last + static_cast<double>((rounds - 1) * gap) + 1;
    next = m_slots[lastAt].second + 1;
    return true;
  }

  void execute(std::size_t t, double now) {
    Tasklet& tk = m_tasklets[t];
    const Step& s = *tk.current();
    ++m_run.instructions;
    tk.readyAt = now + m_cfg.sameTaskletGap;
    switch (s.kind) {
      case Step::Kind::Issue:
        if (--tk.issueLeft == 0) tk.advance();
        break;
      case Step::Kind::Dma: {
        // One queue: the request enters when it is free; the tasklet blocks until its request completes.
        const double enter = std::max(now, m_queueFree);
        m_queueFree = enter + m_cfg.dma.service(s.bytes, s.toMram);
        tk.readyAt = std::max(tk.readyAt, enter + m_cfg.dma.latency(s.bytes, s.toMram));
        ++m_run.dmaRequests;
        m_run.dmaBytes += s.bytes;
        tk.advance();
        m_untilTry = 0;  // it may have been the one keeping the others from whole rounds: try them again
        m_backoff = 1;
        break;
      }
      case Step::Kind::Barrier:
        tk.waiting = true;
        m_arrived.push_back(t);
        m_lastArrival = std::max(m_lastArrival, now);
        tk.advance();
        releaseIfAllArrived();
        return;
      case Step::Kind::Handshake:
        if (!handshakeOpen(t)) {
          tk.waiting = tk.atHandshake = true;  // released when its predecessor passes or ends
          --m_run.instructions;
          return;
        }
        ++tk.handshakes;
        tk.advance();
        releaseSuccessor(t, now);
        break;
      case Step::Kind::Lock: {
        std::optional<std::size_t>& holder = m_mutexHolder[s.mutex];
        if (holder) {
          tk.waiting = true;  // handed the mutex by the holder's unlock, in arrival order
          m_mutexWaiters[s.mutex].push_back(t);
          --m_run.instructions;  // the lock issues when it is handed over
          return;
        }
        holder = t;
        tk.advance();
        break;
      }
      case Step::Kind::Unlock: {
        std::deque<std::size_t>& waiters = m_mutexWaiters[s.mutex];
        m_mutexHolder[s.mutex].reset();
        tk.advance();
        if (!waiters.empty()) {
          const std::size_t next = waiters.front();
          waiters.pop_front();
          m_mutexHolder[s.mutex] = next;
          Tasklet& w = m_tasklets[next];
          w.waiting = false;
          w.advance();  // past its lock, now held
          ++m_run.instructions;
          w.readyAt = now + 1;
          m_untilTry = 0;
          m_backoff = 1;
        }
        break;
      }
      case Step::Kind::Loop:
        break;  // current() never stops at a loop
    }
    settle(t, tk.readyAt);
  }

  // Tasklet t may pass its next handshake: it is the first, or its predecessor passed as many or ended.
  bool handshakeOpen(std::size_t t) const {
    if (t == 0) return true;
    const Tasklet& pred = m_tasklets[t - 1];
    return pred.done || pred.handshakes > m_tasklets[t].handshakes;
  }

  // The tasklet after t, if it waits at a handshake that t has now opened, issues from the next cycle.
  void releaseSuccessor(std::size_t t, double now) {
    if (t + 1 >= m_tasklets.size()) return;
    Tasklet& next = m_tasklets[t + 1];
    if (next.done || !next.atHandshake || !handshakeOpen(t + 1)) return;
    next.waiting = next.atHandshake = false;
    next.readyAt = now + 1;
    m_untilTry = 0;
    m_backoff = 1;
  }

  // A tasklet whose program has ended leaves; a barrier then waits for one tasklet fewer.
  void settle(std::size_t t, double end) {
    Tasklet& tk = m_tasklets[t];
    if (tk.done || tk.current() != nullptr) return;
    tk.done = true;
    --m_live;
    m_run.taskletEnd[t] = end;
    releaseSuccessor(t, end);
    releaseIfAllArrived();
  }

  void releaseIfAllArrived() {
    if (m_arrived.empty() || m_arrived.size() < m_live) return;
    const double T = static_cast<double>(m_arrived.size());
    const double release = m_lastArrival + m_cfg.barrierCoeff * std::pow(T, m_cfg.barrierExp);
    ++m_run.barriers;
    std::vector<std::size_t> arrived;
    arrived.swap(m_arrived);
    m_lastArrival = 0;
    for (std::size_t t : arrived) {
      m_tasklets[t].waiting = false;
      m_tasklets[t].readyAt = release;
      settle(t, release);
    }
  }

  const DpuConfig& m_cfg;
  std::vector<Tasklet> m_tasklets;
  std::size_t m_live = m_tasklets.size();
  std::vector<std::size_t> m_arrived;
  std::map<std::int32_t, std::optional<std::size_t>> m_mutexHolder;
  std::map<std::int32_t, std::deque<std::size_t>> m_mutexWaiters;
  std::vector<std::size_t> m_order;    // scratch of takeRounds
  std::vector<double> m_othersBefore;  // ... per m_order entry: the earliest ready of the others just before
  std::vector<std::pair<double, std::size_t>> m_slots;  // scratch of takeSparseRounds: (slot, tasklet)
  std::vector<std::uint64_t> m_slotTaken;  // ... a bit per cycle of the first period: a slot there
  int m_backoff = 1, m_untilTry = 0;
  double m_lastArrival = 0;
  double m_queueFree = 0;
  DpuRun m_run;
};

}  // namespace

DpuRun simulateDpu(const DpuConfig& cfg, const DpuKernel& kernel) {
  if (kernel.tasklets.empty()) throw std::invalid_argument("DPU kernel: no tasklet");
  if (static_cast<int>(kernel.tasklets.size()) > cfg.maxTasklets)
    throw std::invalid_argument("DPU kernel: " + std::to_string(kernel.tasklets.size()) +
                                " tasklets, more than the DPU's " + std::to_string(cfg.maxTasklets));
  DpuKernel flat;
  for (const TaskletProgram& p : kernel.tasklets) {
    check(p);
    flat.tasklets.push_back(merged(p));
  }
  return Engine(cfg, flat).run();
}

}  // namespace pim::sim::dpu
