// SPDX-License-Identifier: Apache-2.0
// The crossbar accelerator's instruction-level profiler (issue 19; ../shared/specs/crossbar.md, "Profiler
// timing rules" and "Configurations"): PIMCOMP-NN's evaluator (evaluation/ModelEvaluation.cpp) rebuilt as an
// IProgramSink. It reproduces the evaluator's per-core timelines, its visiting order and its per-chip bus and
// global-memory reservation, grant for grant, without its fixed-size arrays and deep recursion.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/crossbar/timing_model.h"
#include "sim/crossbar/xbar_program.h"
#include "sim/crossbar/xbar_reservation.h"

namespace pim::xbar {

/// The MVM latency's parts (PIMCOMP-NN evaluation/EvaluationConfig.h, MVMUL_*_latency), all in ns.
struct MvmLatencyParts {
  std::int64_t readNs = 200;         // MVMUL_read_latency
  std::int64_t perInputBitNs = 200;  // MVMUL_process_latency_per_bit, once per bit of precision
  std::int64_t adcNs = 200;          // MVMUL_ADC_latency
  std::int64_t shiftAddNs = 200;     // MVMUL_sa_latency
  std::int64_t writeNs = 200;        // MVMUL_write_latency
  std::int64_t latencyNs(int precisionBits) const {
    return readNs + precisionBits * perInputBitNs + adcNs + shiftAddNs + writeNs;
  }
};

/// Every constant of the timing model. Times are in profiler cycles, which are ns at the 1 GHz PIMCOMP-NN
/// assumes (frequencyGHz only converts bandwidths to bytes per cycle, as PIMCOMP-NN's Frequency does).
struct TimingParams {
  std::int64_t mvmLatencyNs = 800;  // ns per MVMUL; EvaluationConfig.h MVMUL_latency (800 as implemented)
  std::int64_t mvmIssueIntervalNs = 200;  // ns between MVMUL starts on a core; MVMUL_start_interval
  int elementBits = 16;                   // bits per data element; configure.h ArithmeticPrecision
  std::int64_t vectorBytesPerStep = 64;   // bytes a vector step handles; VECTOR_process_bytes
  std::int64_t vectorStepNs = 10;         // ns per vector step; VECTOR_unit_latency
  double localMemoryGBps = 25.6;          // GB/s, LMV (2 passes) and LLDI; LOCAL_MEMORY_bandwidth
  double globalMemoryGBps = 64.0;         // GB/s per chip, shared by LD/ST; GLOBAL_MEMORY_bandwidth
  double busGBps = 25.6;                  // GB/s per chip, one bus shared by SEND/RECV; BUS_bandwidth
  double hyperTransportGBps = 6.4;  // GB/s between chips, truncated to whole ns; Hyper_Transport_bandwidth
  int coresPerChip = 144;           // cores per contention domain; configure.h OneChipWidth x OneChipHeight
  double frequencyGHz = 1.0;        // cycles per ns; EvaluationConfig.h Frequency (1 GHz)
  // The execution patterns (tcad: III-C; core.outOfOrder, chip.synchronousCommunication). The defaults are
  // PIMCOMP-NN's, the only patterns its evaluator has; xbar_profiler.cpp defines the alternatives.
  // true: preparation (LD, MAIN LMV/LLDI) runs ahead on its own timeline, under the MVMs; false: in order.
  bool outOfOrder = true;
  // true: SEND/RECV meet in a rendezvous; false: the sender never waits, the receiver waits for the data.
  bool synchronous = true;
};

/// PIMCOMP-NN as implemented: 800 ns MVMs (the latency is computed while the precision is still 0) and one
/// 144-core chip after another whatever the configured layout.
TimingParams pimcompNn();
/// The paper's intent: MVM = read + precision x per-bit + ADC + shift-and-add + write (4,000 ns at 16 bits)
/// and chips of the configured size.
TimingParams intended(int precisionBits, int coresPerChip);

TimingParams timingParams(TimingModel model, int precisionBits, int coresPerChip);

/// Throws std::invalid_argument naming the first field that is not positive.
void validate(const TimingParams& params);

/// Instruction counts by kind. Communication counts both halves of a transfer (PIMCOMP-NN's COMM).
struct InstructionCounts {
  std::int64_t mvmul = 0;
  std::int64_t vvadd = 0;
  std::int64_t otherVector = 0;    // VVMAX, VRELU, VTANH, VSIGMOID
  std::int64_t copy = 0;           // LMV, LLDI
  std::int64_t memory = 0;         // LD, ST
  std::int64_t communication = 0;  // SEND, RECV
};

/// One core. endNs and the *Ns shares follow PIMCOMP-NN's per-core accounting exactly (so the shares are its
/// MVMUL/VEC/MEM/COMM_SYN/COMM_TRANS percentages); the *BusyNs fields are resource occupancy for energy.
struct CoreProfile {
  std::int64_t endNs = 0;  // the core's time after the last IG
  std::int64_t mvmNs =
      0;  // MVMUL: the latency for an IG's first, else min(gap since the last start, latency)
  // VVADD in MAIN-C/POST, other vector ops in POST, non-MAIN LMV/LLDI (in-order: every LMV/LLDI)
  std::int64_t vectorNs = 0;
  std::int64_t memoryNs = 0;    // ST latency plus the core's wait for LD-driven preparation (in-order: LDs)
  std::int64_t commSyncNs = 0;  // rendezvous wait (asynchronous: a RECV's wait for its data)
  std::int64_t commTransferNs = 0;  // bus (with contention) plus HyperTransport time (asynchronous: senders)
  std::int64_t crossbarActivations = 0;  // sum of Instruction::crossbars over the core's MVMULs
  std::int64_t vfuBusyNs = 0;            // every vector op's own duration, whatever its stage
  std::int64_t copyBusyNs = 0;           // every LMV/LLDI's own duration, MAIN or not
  std::int64_t loadStoreBusyNs = 0;      // global-memory nanoseconds the core's LD/ST occupied
  std::int64_t commBytes = 0;            // bytes the core sent or received
  InstructionCounts counts;
};

/// One network node (Instruction::node). Times are the same increments the node's instructions add to their
/// cores' shares, so summing nodes gives the cores' totals (for instructions with a node).
struct NodeProfile {
  std::int64_t mvmNs = 0;
  std::int64_t vectorNs = 0;
  std::int64_t memoryNs = 0;
  std::int64_t commNs = 0;  // sync + transfer
  InstructionCounts counts;
  std::int64_t firstStartNs = -1;  // earliest instruction start, -1 when the node has none
  std::int64_t lastFinishNs = -1;  // latest instruction end
  /// The core on which the node's instructions took the most time, and that time by kind (MVM, vector,
  /// memory, communication): what the node adds to the slowest core it runs on, i.e. its weight in the
  /// pipeline period. -1 / zeros when the node has no instructions.
  int busiestCore = -1;
  std::int64_t busiestMvmNs = 0, busiestVectorNs = 0, busiestMemoryNs = 0, busiestCommNs = 0;
};

/// One contention domain's shared resources.
struct ChipProfile {
  std::int64_t busBusyNs = 0;             // bus nanoseconds taken by transfers granted on this chip
  std::int64_t globalMemoryBusyNs = 0;    // global-memory nanoseconds taken by LD/ST
  std::int64_t hyperTransportBusyNs = 0;  // HyperTransport ns of transfers with one end on this chip
};

struct ProfileResult {
  std::int64_t totalNs = 0;  // max core time, PIMCOMP-NN's "practical"
  std::int64_t instructionGroups = 0;
  double averageIgNs = 0;  // totalNs / instructionGroups
  InstructionCounts counts;
  std::int64_t commBytes = 0;       // once per transfer
  std::int64_t loadBytes = 0;       // LD bytes: PIMCOMP-NN's "MEM Volume"
  std::int64_t storeBytes = 0;      // ST bytes (PIMCOMP-NN counts them per core only)
  std::int64_t interChipBytes = 0;  // PIMCOMP-NN's "HT Volume"
  std::int64_t mvmLatencyNs = 0;    // the MVM latency profiled with (energy needs it)
  int coresPerChip = 0;
  std::vector<CoreProfile> cores;
  std::vector<NodeProfile> nodes;
  std::vector<ChipProfile> chips;
};

class Profiler final : public IProgramSink {
 public:
  /// Throws std::invalid_argument for cores <= 0 or invalid params.
  Profiler(int cores, TimingParams params);

  /// Profiles one IG after the previous ones (core times carry over). Throws std::invalid_argument for an IG
  /// with more cores than the accelerator, a malformed instruction, or a SEND/RECV whose partner is never
  /// reached; the profiler's state is unspecified afterwards.
  bool group(const InstructionGroup& ig) override;

  ProfileResult result() const;

 private:
  struct CoreState {
    std::int64_t time = 0;           // PIMCOMP-NN LATENCY_single
    std::int64_t prepTimeline = 0;   // preparation_timeline
    std::int64_t prepSinceMvm = 0;   // preparation_time_single
    std::int64_t lastMvmStart = 0;   // last_MVMUL_exec_start_time
    std::int64_t lastSync = 0;       // last_synchronous_time
    std::int64_t lastMvmGroup = -1;  // IG of the core's latest MVMUL (first-MVMUL-of-IG test)
  };
  struct Frame {  // a pending call of PIMCOMP-NN's recursion: run `core` from instruction `index`
    int core;
    std::size_t index;
  };
  struct PendingComm {  // the first-reached half of a transfer (asynchronous: a RECV), suspended
    int core;
    std::size_t index;
  };
  struct Arrival {           // asynchronous: a SEND's data in flight until its RECV takes it
    int core;                // the sender
    std::size_t index;       // the SEND in the sender's list
    std::int64_t issueNs;    // the sender's time at the SEND
    std::int64_t arrivalNs;  // issue + the transfer the sender paid
    std::int64_t bytes;
  };
  enum class Flow { Continue, Stop };  // whether runFrame goes on with the core's list after a transfer half

  void runFrame(Frame frame);
  void pushNextFreshCore();
  void execute(int core, const Instruction& inst);
  void mvmul(int core, const Instruction& inst);
  void vector(int core, const Instruction& inst);
  void copy(int core, const Instruction& inst);
  void load(int core, const Instruction& inst);
  void store(int core, const Instruction& inst);
  /// An LD's or ST's bytes and counts, and its reservation of the chip's global memory from `from`: the
  /// latency granted.
  std::int64_t globalMemoryAccess(int core, const Instruction& inst, std::int64_t from);
  /// Global-memory order (Instruction::globalWrite): true when the LD at `index` reads a write not timed yet,
  /// its core then suspended there and the next core entered; after an ST, true when it resumed such LDs
  /// (their rest runs first, then the writer's, as after a transfer).
  bool awaitWrite(int core, std::size_t index);
  bool resumeReaders(int core, std::size_t index);
  /// When the write an LD reads has finished: 0 for an untracked LD.
  std::int64_t writtenAt(const Instruction& load) const;
  [[noreturn]] void throwUnwritten() const;
  void rendezvous(int core, std::size_t index, const PendingComm& partner);
  /// The bus (from `from`, on `core`'s chip) and HyperTransport (when `peer` is on another chip) time of a
  /// transfer of `bytes`, with the chips' busy times and the inter-chip volume.
  std::int64_t transferNs(int core, int peer, std::int64_t bytes, std::int64_t from);
  Flow asyncSend(int core, std::size_t index);
  Flow asyncRecv(int core, std::size_t index);
  /// Counts, bytes, the share and the attribution of one transfer half that took `syncNs` + `transferNs`.
  void chargeHalf(int core, const Instruction& inst, std::int64_t bytes, std::int64_t syncNs,
                  std::int64_t transferNs, std::int64_t start);
  void endOfList(int core);
  void attribute(const Instruction& inst, std::int64_t start, std::int64_t end);
  enum class Share { Mvm, Vector, Memory, Comm };
  /// Adds `ns` to the node's share of kind `kind` and to its time on `core`.
  void charge(const Instruction& inst, int core, Share kind, std::int64_t ns);
  NodeProfile* node(const Instruction& inst);
  int chipOf(int core) const { return core / m_params.coresPerChip; }
  std::int64_t bytesOf(const Instruction& inst) const { return inst.elements * m_params.elementBits / 8; }
  std::int64_t vectorNs(std::int64_t elements) const;
  void forgetSettledReservations();
  [[noreturn]] void throwUnpaired() const;
  [[noreturn]] void throwPairing(int core, std::int64_t comm, const std::string& what) const;

  TimingParams m_params;
  int m_cores;
  std::vector<CoreState> m_state;
  std::vector<CoreProfile> m_coreProfiles;
  std::vector<NodeProfile> m_nodes;
  std::vector<std::array<std::int64_t, 4>> m_nodeCoreNs;  // [node * cores + core], by Share
  std::vector<ChipProfile> m_chipProfiles;
  std::vector<ReservationTable> m_bus;           // per chip
  std::vector<ReservationTable> m_globalMemory;  // per chip
  std::vector<std::int64_t> m_agLastStart;       // per AG; 0 means "never", as PIMCOMP-NN tests it
  std::vector<std::int64_t> m_writeDone;  // per global-memory write id: when its ST finished, -1 before
  ProfileResult m_totals;                 // counts and volumes; per-core/node/chip parts live above

  // Per-IG state of the visiting order.
  const InstructionGroup* m_ig = nullptr;
  std::int64_t m_groupIndex = -1;
  int m_nextFreshCore = 0;  // cores below it have been entered (PIMCOMP-NN's visited_single is a prefix)
  std::vector<Frame> m_frames;
  std::unordered_map<std::int64_t, PendingComm> m_pending;  // comm index -> suspended half
  std::unordered_map<std::int64_t, Arrival> m_arrivals;  // asynchronous: comm index -> data not yet received
  std::unordered_multimap<std::int64_t, PendingComm> m_readers;  // write id -> LD suspended until its ST
};

}  // namespace pim::xbar
