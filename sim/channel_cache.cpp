// SPDX-License-Identifier: Apache-2.0
#include "sim/channel_cache.h"

namespace pim::sim {

void ChannelRunCache::bind(const DeviceConfig& cfg) {
  if (m_config && *m_config == cfg) return;
  m_config = std::make_unique<DeviceConfig>(cfg);
  m_lru.clear();
  m_index.clear();
}

std::shared_ptr<const ChannelRun> ChannelRunCache::find(std::uint64_t hash, std::int64_t stopAfter) {
  const auto it = m_index.find(hash);
  if (it == m_index.end()) {
    ++m_misses;
    return nullptr;
  }
  const ChannelRun& run = *it->second->second;
  // A stopped run only proves that the program takes longer than the cycle it had passed.
  if (run.stopped && (stopAfter <= 0 || run.endCycle <= stopAfter)) {
    ++m_misses;
    return nullptr;
  }
  ++m_hits;
  m_lru.splice(m_lru.begin(), m_lru, it->second);
  return it->second->second;
}

void ChannelRunCache::put(std::uint64_t hash, std::shared_ptr<const ChannelRun> run) {
  if (m_capacity == 0) return;
  if (const auto it = m_index.find(hash); it != m_index.end()) {
    it->second->second = std::move(run);
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return;
  }
  m_lru.emplace_front(hash, std::move(run));
  m_index[hash] = m_lru.begin();
  if (m_index.size() > m_capacity) {
    m_index.erase(m_lru.back().first);
    m_lru.pop_back();
  }
}

}  // namespace pim::sim
