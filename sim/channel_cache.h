// SPDX-License-Identifier: Apache-2.0
#pragma once
// Channel programs already simulated, reused by later simulate() calls. A labelling or exhaustive run
// simulates 10^5-10^6 drafts of one problem, and their channels often run the very same program (every idle
// group only reads its share of the host layout; drafts with equal per-core tiles and live banks write the
// same bursts), so most channel runs can be looked up instead of simulated again.
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>

#include "sim/config.h"
#include "sim/scheduler.h"

namespace pim::sim {

/// Least-recently-used map from a channel program's content hash to its run. It holds complete runs and,
/// for runs stopped by SimOptions::stopAfterCycles, the cycle they had passed (enough to stop again under
/// any bound below it). Runs depend on the device, so the cache remembers the configuration it was filled
/// under and empties itself when asked about another one. Not thread-safe: one cache per thread.
class ChannelRunCache {
 public:
  explicit ChannelRunCache(std::size_t capacity = 4096) : m_capacity(capacity) {}

  /// Binds the cache to `cfg` (finalized); entries made under a different configuration are dropped.
  void bind(const DeviceConfig& cfg);
  /// The run of program `hash`, or null. A stopped run is returned only if it passed `stopAfter` (> 0).
  std::shared_ptr<const ChannelRun> find(std::uint64_t hash, std::int64_t stopAfter);
  /// Keeps `run` (traces are never kept: a traced simulation does not use the cache).
  void put(std::uint64_t hash, std::shared_ptr<const ChannelRun> run);

  std::size_t hits() const { return m_hits; }
  std::size_t misses() const { return m_misses; }
  std::size_t size() const { return m_index.size(); }

 private:
  using Entry = std::pair<std::uint64_t, std::shared_ptr<const ChannelRun>>;
  std::size_t m_capacity;
  std::unique_ptr<DeviceConfig> m_config;
  std::list<Entry> m_lru;  // most recent first
  std::unordered_map<std::uint64_t, std::list<Entry>::iterator> m_index;
  std::size_t m_hits = 0, m_misses = 0;
};

}  // namespace pim::sim
