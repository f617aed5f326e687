// SPDX-License-Identifier: Apache-2.0
#include "sim/channel_cache.h"

namespace pim::sim {
namespace {

std::size_t heapBytes(const ChannelProgram& p, const ChannelRun& run) {
  std::size_t n = sizeof(ChannelRun) + run.banks.capacity() * sizeof(BankState);
  n += p.blocks.capacity() * sizeof(Block);
  for (const Block& b : p.blocks) n += b.cmds.capacity() * sizeof(Command);
  return n;
}

}  // namespace

void ChannelRunCache::bind(const DeviceConfig& cfg) {
  if (m_config && *m_config == cfg) return;
  m_config = std::make_unique<DeviceConfig>(cfg);
  m_lru.clear();
  m_index.clear();
  m_bytes = 0;
}

std::shared_ptr<const ChannelRun> ChannelRunCache::find(std::uint64_t hash, const ChannelProgram& program,
                                                        std::int64_t stopAfter) {
  const auto it = m_index.find(hash);
  if (it == m_index.end()) {
    ++m_misses;
    return nullptr;
  }
  const Entry& e = *it->second;
  if (!(e.program == program)) {
    ++m_collisions;
    ++m_misses;
    return nullptr;
  }
  // A stopped run only proves that the program takes longer than the cycle it had passed.
  if (e.run->stopped && (stopAfter <= 0 || e.run->endCycle <= stopAfter)) {
    ++m_misses;
    return nullptr;
  }
  ++m_hits;
  m_lru.splice(m_lru.begin(), m_lru, it->second);
  return e.run;
}

void ChannelRunCache::put(std::uint64_t hash, const ChannelProgram& program,
                          std::shared_ptr<const ChannelRun> run) {
  if (m_capacity == 0 || !run) return;
  // The copy is what a later lookup compares against; a fresh vector has no spare capacity.
  Entry fresh{hash, program, std::move(run), 0};
  fresh.bytes = heapBytes(fresh.program, *fresh.run);
  if (fresh.bytes > m_maxBytes / 4) return;  // would push out many ordinary entries for one
  if (const auto it = m_index.find(hash); it != m_index.end()) {
    // The same program with a newer run (a complete run after a stopped one), or another program with the
    // same hash: either way the newer entry replaces the older.
    m_bytes -= it->second->bytes;
    m_lru.erase(it->second);
    m_index.erase(it);
  }
  m_bytes += fresh.bytes;
  m_lru.push_front(std::move(fresh));
  m_index[hash] = m_lru.begin();
  while (m_lru.size() > 1 && (m_index.size() > m_capacity || m_bytes > m_maxBytes)) evictLeastRecent();
}

void ChannelRunCache::evictLeastRecent() {
  m_bytes -= m_lru.back().bytes;
  m_index.erase(m_lru.back().hash);
  m_lru.pop_back();
}

}  // namespace pim::sim
