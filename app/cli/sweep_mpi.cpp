// SPDX-License-Identifier: Apache-2.0
#include "app/cli/sweep_mpi.h"

#include <array>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "engine/common/error.h"

#ifdef PIMSCOPE_WITH_MPI
#include <mpi.h>
#endif

namespace pim::cli {

bool mpiBuilt() {
#ifdef PIMSCOPE_WITH_MPI
  return true;
#else
  return false;
#endif
}

namespace {

// Tasks in this Slurm job step (srun sets it for every task it starts; a batch script's own step has none).
int slurmStepTasks() {
  const char* n = std::getenv("SLURM_STEP_NUM_TASKS");
  return n ? std::atoi(n) : 0;
}

// srun's tasks are ranks of one MPI job only when srun gave them a PMI; without one (--mpi=none, a site
// default) each would run the whole plan into the same shards and store, so they are refused.
void refuseSrunTasksWithoutMpi(bool builtWithMpi) {
  const int tasks = slurmStepTasks();
  if (tasks <= 1) return;
  throw InputError(
      "sweep: srun started " + std::to_string(tasks) + " tasks, but " +
      (builtWithMpi ? std::string("they are not MPI ranks of one job (no PMI or PMIx in their environment): "
                                  "run srun --mpi=pmix (or the MPI plugin your site's Open MPI uses)")
                    : std::string("this pimscope-cli was built without MPI (install libopenmpi-dev and "
                                  "rebuild)")) +
      "; each task would run the whole plan into the same store");
}

}  // namespace

bool launchedAsRanks() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(v)) return true;
  }
  return false;
}

#ifdef PIMSCOPE_WITH_MPI
namespace {

constexpr int kRequestTag = 1, kReplyTag = 2, kShareTag = 3;
// A request: {kind, unit, labelled, simulated, microseconds, best cycles}. The reply: {the next unit, or -1
// (the end); its shape's incumbent}. To kShare (a running unit's best so far), under kShareTag: {the unit;
// its shape's incumbent}.
enum Kind : long long { kFirst = 0, kFinished = 1, kLeaving = 2, kShare = 3 };
using Message = std::array<long long, 6>;
using Reply = std::array<long long, 2>;

class RemoteQueue : public ISweepQueue {
 public:
  /// `shares`: MPI lets a second thread call it (MPI_THREAD_SERIALIZED); without, share() shares nothing.
  explicit RemoteQueue(bool shares) : m_shares(shares) {}
  std::optional<SweepAssignment> next(const SweepUnitResult* finished) override {
    Message m{kFirst, -1, 0, 0, 0, INT64_MAX};
    if (finished) {
      m = {finished->cancelled ? kLeaving : kFinished,      static_cast<long long>(finished->unit),
           static_cast<long long>(finished->labelled),      static_cast<long long>(finished->simulated),
           static_cast<long long>(finished->seconds * 1e6), finished->bestCycles};
    }
    MPI_Send(m.data(), static_cast<int>(m.size()), MPI_LONG_LONG, 0, kRequestTag, MPI_COMM_WORLD);
    if (m[0] == kLeaving) return std::nullopt;  // rank 0 sends no reply to a rank that leaves
    Reply reply{-1, INT64_MAX};
    MPI_Recv(reply.data(), static_cast<int>(reply.size()), MPI_LONG_LONG, 0, kReplyTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    readShareReplies();  // the last unit's, answered before this reply
    if (reply[0] < 0) return std::nullopt;
    m_unit = reply[0];
    m_known = reply[1];
    return SweepAssignment{static_cast<std::size_t>(reply[0]), reply[1]};
  }
  // Does not wait for the answer: a blocking receive would spin (Open MPI polls) on the core this rank's
  // labelling threads need, for up to rank 0's 2-ms polling; the answer is taken at the next share.
  std::int64_t share(std::size_t unit, std::int64_t bestCycles) override {
    if (!m_shares) return bestCycles;
    readShareReplies();
    const Message m{kShare, static_cast<long long>(unit), 0, 0, 0, bestCycles};
    MPI_Send(m.data(), static_cast<int>(m.size()), MPI_LONG_LONG, 0, kRequestTag, MPI_COMM_WORLD);
    return std::min<std::int64_t>(m_known, bestCycles);
  }

 private:
  void readShareReplies() {
    for (int flag = 1; flag;) {
      MPI_Iprobe(0, kShareTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (!flag) break;
      Reply r{};
      MPI_Recv(r.data(), static_cast<int>(r.size()), MPI_LONG_LONG, 0, kShareTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      if (r[0] == m_unit) m_known = std::min<long long>(m_known, r[1]);
    }
  }
  bool m_shares;
  long long m_unit = -1;          // the unit running
  long long m_known = INT64_MAX;  // its shape's best, as rank 0 last answered
};

}  // namespace

SweepWorld::SweepWorld() {
  if (!launchedAsRanks()) {
    refuseSrunTasksWithoutMpi(true);
    return;
  }
  int provided = 0;
  // Serialized: a worker rank's main thread calls MPI between units and its share thread while a unit runs,
  // never both at once; rank 0's serve loop is its only MPI caller. Labelling threads never call MPI.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    throw InputError("sweep: MPI_Init_thread failed");
  m_initialised = true;
  m_sharesWhileRunning = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m_size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &m_localSize);
  MPI_Comm_free(&local);
}

SweepWorld::~SweepWorld() {
  if (m_initialised) MPI_Finalize();
}

void SweepWorld::barrier() const {
  if (m_initialised) MPI_Barrier(MPI_COMM_WORLD);
}

void SweepWorld::serve(ISweepQueue& queue, const std::function<void()>& localWork) const {
  std::thread local(localWork);
  int active = m_size - 1;
  while (active > 0) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kRequestTag, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      // Polling with a short sleep: a blocking receive would spin a core that rank 0's own worker needs.
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    Message m{};
    MPI_Recv(m.data(), static_cast<int>(m.size()), MPI_LONG_LONG, st.MPI_SOURCE, kRequestTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (m[0] == kShare) {
      const Reply known{m[1], queue.share(static_cast<std::size_t>(m[1]), m[5])};
      MPI_Send(known.data(), static_cast<int>(known.size()), MPI_LONG_LONG, st.MPI_SOURCE, kShareTag,
               MPI_COMM_WORLD);
      continue;
    }
    SweepUnitResult r;
    r.unit = static_cast<std::size_t>(m[1]);
    r.labelled = static_cast<std::size_t>(m[2]);
    r.simulated = static_cast<std::size_t>(m[3]);
    r.seconds = static_cast<double>(m[4]) / 1e6;
    r.bestCycles = m[5];
    r.cancelled = m[0] == kLeaving;
    const auto next = queue.next(m[0] == kFirst ? nullptr : &r);
    if (r.cancelled) {
      --active;
      continue;
    }
    const Reply reply =
        next ? Reply{static_cast<long long>(next->unit), next->incumbent} : Reply{-1, INT64_MAX};
    MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_LONG_LONG, st.MPI_SOURCE, kReplyTag,
             MPI_COMM_WORLD);
    if (!next) --active;
  }
  local.join();
}

std::unique_ptr<ISweepQueue> SweepWorld::remoteQueue() const {
  return std::make_unique<RemoteQueue>(m_sharesWhileRunning);
}

#else  // one process: a launcher's ranks would each run the whole plan, so they are refused by name

SweepWorld::SweepWorld() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = std::getenv("PMI_SIZE");
  if (size && std::atoi(size) > 1)
    throw InputError(
        "sweep: started as one of several MPI ranks, but this pimscope-cli was built without MPI "
        "(install libopenmpi-dev and rebuild; without MPI, run sweep as one process)");
  refuseSrunTasksWithoutMpi(false);
}
SweepWorld::~SweepWorld() = default;
void SweepWorld::barrier() const {}
void SweepWorld::serve(ISweepQueue& /*queue*/, const std::function<void()>& localWork) const { localWork(); }
std::unique_ptr<ISweepQueue> SweepWorld::remoteQueue() const {
  throw InputError("sweep: no MPI in this build");
}

#endif

}  // namespace pim::cli
