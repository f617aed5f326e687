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
#include "sim/program.h"
#include "sim/scheduler.h"

namespace pim::sim {

/// Least-recently-used map from a channel program to its run, found by the program's content hash and
/// confirmed by comparing the program itself: a 64-bit hash can collide, and a collision must cost a
/// simulation, never another program's timing. It holds complete runs and, for runs stopped by
/// SimOptions::stopAfterCycles, the cycle they had passed (enough to stop again under any bound below it).
/// Runs depend on the device, so the cache remembers the configuration it was filled under and empties itself
/// when asked about another one. Not thread-safe: one cache per thread.
///
/// Memory: each entry keeps a copy of its program next to its run, and programs are the larger part (measured
/// on 2,000 kept drafts of gemv 4096x4096: 123 distinct programs of ~230 KB on hbm-pim, 141 of ~575 KB on
/// hbm2-pim; a run is a few KB of per-bank state). Both are bounded: at most `capacity` entries and
/// `maxBytes` of programs and runs together, least recently used first out; a single entry above a quarter of
/// `maxBytes` is not kept. On those walks 32 MB already gave the same hits as unbounded and 8 MB cost 13-24x
/// the time in misses; the default 64 MB per cache (one per worker thread) leaves room for longer walks.
class ChannelRunCache {
 public:
  explicit ChannelRunCache(std::size_t capacity = 4096, std::size_t maxBytes = std::size_t{64} << 20)
      : m_capacity(capacity), m_maxBytes(maxBytes) {}

  /// Binds the cache to `cfg` (finalized); entries made under a different configuration are dropped.
  void bind(const DeviceConfig& cfg);
  /// The run of `program` (whose hash() is `hash`), or null. A stopped run is returned only if it passed
  /// `stopAfter` (> 0). The hash is an argument so that callers hash once (and tests can force a collision).
  std::shared_ptr<const ChannelRun> find(std::uint64_t hash, const ChannelProgram& program,
                                         std::int64_t stopAfter);
  /// Keeps `run` of `program` (whose hash() is `hash`; traces are never kept: a traced simulation does not
  /// use the cache). Replaces the entry of another program with the same hash.
  void put(std::uint64_t hash, const ChannelProgram& program, std::shared_ptr<const ChannelRun> run);

  std::size_t hits() const { return m_hits; }
  std::size_t misses() const { return m_misses; }
  /// Lookups whose hash matched an entry of another program (counted as misses too).
  std::size_t collisions() const { return m_collisions; }
  std::size_t size() const { return m_index.size(); }
  /// Approximate heap bytes held by the entries (programs and runs).
  std::size_t bytes() const { return m_bytes; }

 private:
  struct Entry {
    std::uint64_t hash = 0;
    ChannelProgram program;
    std::shared_ptr<const ChannelRun> run;
    std::size_t bytes = 0;
  };
  void evictLeastRecent();

  std::size_t m_capacity, m_maxBytes;
  std::unique_ptr<DeviceConfig> m_config;
  std::list<Entry> m_lru;  // most recent first
  std::unordered_map<std::uint64_t, std::list<Entry>::iterator> m_index;
  std::size_t m_bytes = 0;
  std::size_t m_hits = 0, m_misses = 0, m_collisions = 0;
};

}  // namespace pim::sim
