// SPDX-License-Identifier: Apache-2.0
#include "sim/frontend.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pim::sim {
namespace {
constexpr int kBuffers = 3;
}  // namespace

Program sharedRuns(const Program& prog, bool share) {
  Program p;
  for (int ch = 0; ch < prog.numChannels(); ++ch) {
    const int program = prog.channelMap[size_t(ch)];
    int c = share ? 0 : int(p.programs.size());
    while (c < int(p.programs.size()) && !(p.programs[size_t(c)] == prog.programs[size_t(program)])) ++c;
    if (c == int(p.programs.size())) p.programs.push_back(prog.programs[size_t(program)]);
    p.channelMap.push_back(c);
  }
  return p;
}

FedChannels::FedChannels(const FrontendOrder& order, const Program& classes,
                         const std::vector<int64_t>& requests)
    : m_order(order),
      m_classOf(classes.channelMap),
      m_first(classes.programs.size(), -1),
      m_where(order.requests.size(), {UINT32_MAX, 0}) {
  if (order.sent.size() != m_classOf.size())
    throw std::logic_error("frontend order: " + std::to_string(order.sent.size()) +
                           " channels, the program " + std::to_string(m_classOf.size()));
  for (size_t ch = 0; ch < order.sent.size(); ++ch) {
    const size_t c = size_t(m_classOf[ch]);
    if (m_first[c] < 0) m_first[c] = int(ch);
    if (int64_t(order.sent[ch].size()) != requests[c])
      throw std::logic_error("frontend order: channel " + std::to_string(ch) + " sends " +
                             std::to_string(order.sent[ch].size()) + " requests, its program has " +
                             std::to_string(requests[c]));
    for (size_t k = 0; k < order.sent[ch].size(); ++k) {
      const size_t g = order.sent[ch][k];
      if (g >= m_where.size() || m_where[g].first != UINT32_MAX || order.requests[g].channel != ch)
        throw std::logic_error("frontend order: request " + std::to_string(g) + " misnumbered");
      m_where[g] = {uint32_t(ch), k};
    }
  }
  for (size_t c = 0; c < m_first.size(); ++c) {
    m_arrivals.emplace_back(size_t(requests[c]), 0);
    m_departures.emplace_back(size_t(requests[c]), 0);
  }
}

int64_t FedChannels::serve(size_t c, size_t sentBefore, ChannelScheduler& s, int64_t stopAfter) {
  const int64_t k = s.serveNext(sentBefore, stopAfter);
  if (k < 0) return k;
  const size_t b = size_t(m_order.requests[m_order.sent[size_t(m_first[c])][size_t(k)]].buffer);
  std::vector<int64_t>& left = m_left[c * kBuffers + b];
  const int64_t d = m_departures[c][size_t(k)];
  left.insert(std::upper_bound(left.begin(), left.end(), d), d);
  return k;
}

int64_t FedChannels::send(size_t g, int64_t t, std::vector<size_t>& arrived,
                          std::vector<std::unique_ptr<ChannelScheduler>>& scheds, int64_t stopAfter) {
  const auto [ch, r] = m_where[g];
  const size_t c = size_t(m_classOf[ch]), b = size_t(m_order.requests[g].buffer);
  const size_t entries = m_order.bufferEntries;
  // Its buffer's n-th departure frees the entry its (n + entries)-th arrival waits for; Ramulator's frontend
  // ticks before the controller, so the entry is taken a cycle later. A member of a class is served as the
  // class's first channel is (checked below).
  if (const size_t n = arrived[ch * kBuffers + b]++; n >= entries) {
    std::vector<int64_t>& left = m_left[c * kBuffers + b];
    while (left.size() < n - entries + 1) {
      const int64_t got = serve(c, g, *scheds[c], stopAfter);
      if (got == ChannelScheduler::kStopped) return -1;
      if (got >= 0) continue;
      if (int(ch) != m_first[c]) throw NotShared{};  // the first channel's requests lag behind
      throw std::logic_error("frontend: channel " + std::to_string(ch) + " holds a full buffer at request " +
                             std::to_string(g) + " but serves none of it");
    }
    if (const int64_t free = left[n - entries] + 1; free > t) {
      t = free;
      ++m_heldBack;
    }
  }
  if (int(ch) == m_first[c]) {
    m_arrivals[c][r] = t;
  } else if (m_order.sent[size_t(m_first[c])][r] > g || m_arrivals[c][r] != t) {
    throw NotShared{};  // this member would be served otherwise than its class's first channel
  }
  return t;
}

bool FedChannels::runPart(size_t k, int64_t start, std::vector<std::unique_ptr<ChannelScheduler>>& scheds,
                          const std::vector<std::vector<ChannelProgram>>& parts, int64_t stopAfter) {
  const size_t first = k == 0 ? 0 : m_order.barriers[k - 1];
  const size_t last = k < m_order.barriers.size() ? m_order.barriers[k] : m_order.requests.size();
  for (size_t c = 0; c < scheds.size(); ++c) {
    scheds[c]->setRequestBuffer(m_order.bufferEntries);
    scheds[c]->feedRequests(&m_arrivals[c], &m_departures[c], &m_order.sent[size_t(m_first[c])]);
    scheds[c]->beginPart(k < parts[c].size() ? parts[c][k] : ChannelProgram{});
  }
  m_left.assign(scheds.size() * kBuffers, {});
  std::vector<size_t> arrived(m_classOf.size() * kBuffers, 0);
  int64_t t = start;
  for (size_t g = first; g < last; ++g)
    if ((t = send(g, t, arrived, scheds, stopAfter)) < 0) return false;
  for (size_t c = 0; c < scheds.size(); ++c) {
    int64_t got = 0;
    while ((got = serve(c, last, *scheds[c], stopAfter)) >= 0) {
    }
    if (got == ChannelScheduler::kStopped) return false;
    if (got == ChannelScheduler::kBlocked)
      throw std::logic_error("frontend: channel " + std::to_string(m_first[c]) +
                             " waits for a request never sent");
  }
  return true;
}

}  // namespace pim::sim
