// SPDX-License-Identifier: Apache-2.0
// The sweep's transport between processes: MPI when pimscope-cli is built with it and started by a launcher
// (mpirun, srun); otherwise one process. Rank 0 hands units out to whichever rank asks (docs/sweep.md).
#pragma once
#include <functional>
#include <memory>
#include <optional>

#include "engine/workflow/sweep.h"

namespace pim::cli {

/// True when this build has MPI (CMake found it: PIMSCOPE_WITH_MPI).
bool mpiBuilt();
/// True when a launcher started this process as one rank of several (OpenMPI, PMI or PMIx variables).
bool launchedAsRanks();

/// MPI for the life of one command: initialised when built with MPI and launched as ranks; else one rank.
class SweepWorld {
 public:
  SweepWorld();
  ~SweepWorld();
  SweepWorld(const SweepWorld&) = delete;
  SweepWorld& operator=(const SweepWorld&) = delete;
  int rank() const { return m_rank; }
  int size() const { return m_size; }
  /// Ranks on this rank's machine (1 without MPI): the labelling threads of a machine are shared by them.
  int localSize() const { return m_localSize; }
  /// Waits for every rank (nothing with one).
  void barrier() const;

  /// Rank 0: answers the other ranks' requests from `queue` (thread-safe) while `localWork` runs on a thread
  /// of its own, until every rank has been told the sweep is over or has left it.
  void serve(ISweepQueue& queue, const std::function<void()>& localWork) const;
  /// Ranks other than 0: the queue that asks rank 0.
  std::unique_ptr<ISweepQueue> remoteQueue() const;
  /// Bytes on the wire per unit handed out: a six-number request and a two-number reply.
  static constexpr std::size_t kBytesPerUnit = 8 * sizeof(long long);

 private:
  int m_rank = 0, m_size = 1, m_localSize = 1;
  bool m_initialised = false;
  bool m_sharesWhileRunning = false;  // the MPI library lets a unit's share thread call it
};

}  // namespace pim::cli
