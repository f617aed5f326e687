// SPDX-License-Identifier: Apache-2.0
// Internals of the LL scheduler (ll_schedule.h; ../shared/specs/crossbar.md, "Scheduling", LL): the graph as
// the element pipeline sees it, the per-core heap of local memory, and the scheduler's pixel-level state
// (tcad VII-B, Fig. 9: dependency lists, runtime record, memory manager).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/crossbar/ll_schedule.h"
#include "engine/crossbar/window.h"

namespace pim::crossbar::ll {

/// What the element pipeline does with a node (pimcomp-nn ElementPipelineSchedule: CONV/FC run on their
/// array groups; POOL, ELTWISE, CONCAT and activations are "post" nodes on one core; no_consider_node_set
/// passes pixels through untouched; an activation right after a CONV/FC is dropped from the topology).
enum class Role : std::uint8_t { Input, Compute, Pool, Eltwise, Concat, Activation, Folded, PassThrough };

struct Graph {
  explicit Graph(const Network& net);

  std::vector<Role> role;
  std::vector<std::vector<int>> consumers;    // pimcomp-nn PIMCOMP_topology_provider_consumer_relation
  std::vector<std::vector<int>> providers;    // its inverse, in the order the links were found
  std::vector<std::int64_t> pixels;           // output pixels ("output channels"): FC 1, else H*W
  std::vector<std::int64_t> channelElements;  // elements of one output pixel: output_dim[1]
  std::vector<Window> window;                 // CONV and POOL
  std::vector<char> graphSink;                // no consumer in the file
  std::vector<int> lastNodes;                 // computing nodes whose completion ends the schedule

  /// The position of `provider` among `node`'s providers (pimcomp-nn index_in_all_providers).
  int providerSlot(int node, int provider) const;
};

/// PIMCOMP-NN's MemoryManager: a first-fit heap of elements per core. Addresses matter only for fitting;
/// instructions carry lengths, not addresses.
class LocalMemory {
 public:
  LocalMemory(std::int64_t cores, std::int64_t capacity);
  /// The lowest address with `elements` free after it; throws InputError naming `what` when none is.
  std::int64_t allocate(std::int64_t core, std::int64_t elements, const std::string& what);
  /// As allocate, but -1 when nothing fits.
  std::int64_t tryAllocate(std::int64_t core, std::int64_t elements);
  /// An attempt the caller may undo: after releasing what it allocated since beginAttempt, abandonAttempt
  /// also forgets the peaks it reached, so an abandoned attempt leaves no trace.
  void beginAttempt() { m_peakBefore = m_peak; }
  void abandonAttempt() { m_peak = m_peakBefore; }
  void release(std::int64_t core, std::int64_t address, std::int64_t elements);
  /// The longest run of free elements on the core once tryAllocate(core, elements) has run; -1 if it would
  /// fail.
  std::int64_t largestGapAfter(std::int64_t core, std::int64_t elements) const;
  const std::vector<std::int64_t>& peak() const { return m_peak; }
  void setGroup(std::int64_t ig) { m_group = ig; }

 private:
  std::int64_t m_capacity;
  std::int64_t m_group = 0;
  std::vector<std::map<std::int64_t, std::int64_t>> m_free;  // per core: free gaps, start -> length
  std::vector<std::int64_t> m_used, m_peak, m_peakBefore;
};

/// ChannelUse::address of an input pixel read from global memory (LlOptions::spillToGlobalMemory).
inline constexpr std::int64_t kInGlobalMemory = -2;
/// Operands::src of an LD of the spilled inputs of a node's provider slot: apart from the network input (-1),
/// the biases (-node) and every other slot, so that MergePreparation merges only loads of one region.
inline std::int64_t spillSource(int node, std::int64_t slot) {
  return -(std::int64_t{1} << 40) - std::int64_t{node} * 4096 - slot;
}
/// The slot of spillSource that a scatter layer's accumulators in global memory are loaded from.
inline constexpr std::int64_t kAccumulatorSlot = 4095;

/// One input pixel of a CONV/FC on one core: how many (AG, window) segments still read it.
struct ChannelUse {
  std::int64_t core = 0;
  std::int64_t rest = 0;
  std::int64_t address = -1;  // held on the core while >= 0; kInGlobalMemory when spilled
  std::int64_t write = -1;    // kInGlobalMemory: the write its copy there comes from (-1: the network input)
};

/// A computed pixel's buffer that outlives its computation until the last transfer reading it is issued: a
/// post node's output, or a scatter layer's finished accumulator (ll_scatter.cpp).
struct HeldOutput {
  std::int64_t core = 0;
  std::int64_t address = 0;
  std::int64_t waiting = 0;  // transfers reading it not yet issued
};

/// A CONV/FC node's progress and the runtime record of its inputs. A replica computes windows r, r + R, ...:
/// output pixels, except in a scatter unfolding (I,OK2,1, IK,OK,1), whose window is an input pixel or a
/// column of K_h of them and whose products are added into the accumulators of several output pixels.
struct ComputeState {
  int node = -1;
  const LayerPartition* layer = nullptr;
  std::int64_t replicas = 1, bands = 1, firstAg = 0;
  bool firstLayer = false;  // reads the network input from global memory, always ready
  bool withBias = false;
  std::int64_t inputChannels = 0, channelElements = 0;
  std::int64_t fcKey = -1;                    // FC: input pixels 0..fcKey must all have arrived
  std::vector<std::vector<ChannelUse>> uses;  // per input pixel, ascending cores
  std::vector<char> ready;                    // per input pixel: arrived (every replica sees it)
  std::vector<char> loaded;                   // first layer: already loaded from global memory
  std::int64_t readyPrefix = 0;               // FC: pixels 0..readyPrefix-1 have arrived
  std::vector<std::int64_t> produced;         // per replica: windows computed
  std::vector<std::int64_t> undelivered;      // per replica: transfers of its last pixel still waiting
  std::int64_t windows = 0;                   // per sample: output pixels, or the scatter format's windows
  bool scatter = false;
  std::vector<std::int64_t> contributionsLeft;  // scatter, per output pixel: window blocks still to add
  std::vector<std::int64_t> accumulator;        // scatter, per output pixel: its buffer while open, else -1
  std::vector<char> started;                    // scatter, per output pixel: a block was added
  std::vector<HeldOutput> held;                 // scatter: finished pixels waiting for their transfers
};

/// One input pixel of a post node (per provider slot): its buffer on the node's core.
struct PostInput {
  std::int64_t address = -1;
  std::int64_t write = -1;  // address kInGlobalMemory: the write its copy there comes from
  std::int64_t rest = 0;    // POOL: windows still to read it
  bool ready = false;
  bool requested = false;  // buffer allocated and transfer issued once
};

struct PostState {
  int node = -1;
  std::int64_t core = 0;
  std::vector<std::vector<PostInput>> inputs;  // [provider slot][pixel]; a POOL has one slot
  std::vector<std::int64_t> slotElements;      // elements of one input pixel per slot
  std::vector<char> done;
  std::set<std::int64_t> candidates;  // pixels that may have become ready since last checked
  std::vector<HeldOutput>
      outputs;  // output buffers, released at the end of the IG once nothing waits on them
};

/// The local-memory operands PIMCOMP-NN's InstructionOptimization::MergePreparation compares when it merges
/// an LD, LMV or LLDI into the instruction before it (global-memory sources: -1 for the network input,
/// -node for a bias).
struct Operands {
  std::int64_t src = 0, srcOff = 0, dst = 0, dstOff = 0;
  std::int64_t srcWrite = -1;  // an LD's: the global-memory write it reads (xbar::Instruction::globalWrite)
};

/// The last instruction of a core's list in the current IG as emitted and as kept after merging.
struct CopyRecord {
  xbar::Opcode op = xbar::Opcode::Mvmul;
  Operands at;
  std::int64_t elements = 0;
};

/// A computed pixel on its way to a consumer, held until the IG ends (heuristic centralised communication).
struct Transfer {
  int origin = -1;            // the node that computed the pixel (SEND's node)
  std::int64_t replica = -1;  // the replica that computed it (CONV/FC), -1 for a post node
  int target = -1;            // the consumer
  int slot = -1;              // the consumer's provider slot (post nodes)
  std::int64_t pixel = 0;
  std::int64_t core = 0;     // where the pixel is
  std::int64_t address = 0;  // and its buffer there
  std::int64_t elements = 0;
};

class Scheduler {
 public:
  Scheduler(const CompilePlan& plan, const LlOptions& options);
  LlScheduleSummary run(xbar::IProgramSink& sink);

 private:
  // ll_setup.cpp
  void initCompute(int node);
  void countConvUses(ComputeState& s);
  void countFcUses(ComputeState& s);
  void initPost(int node);
  std::int64_t placePost(int node) const;
  // ll_compute.cpp
  void loadBiases();
  bool computeReplica(ComputeState& s, std::int64_t replica);
  bool inputsReady(const ComputeState& s, std::int64_t window);
  bool loadFirstLayerInputs(ComputeState& s, std::int64_t pixel);
  void prepareAndMultiply(ComputeState& s, std::int64_t ag, std::int64_t pixel);
  void readChannel(ComputeState& s, std::int64_t ag, std::int64_t channel, std::int64_t position,
                   std::int64_t first, std::int64_t last);
  void accumulate(const ComputeState& s, std::int64_t headAg);
  void activate(const ComputeState& s, std::int64_t core, std::int64_t elements);
  void sendPartial(int node, std::int64_t from, std::int64_t to, std::int64_t elements);
  // ll_scatter.cpp
  void initScatter(ComputeState& s);
  /// The input pixel under each window position (-1: padding): a CONV's output-pixel window, or a scatter
  /// format's input pixel (I,OK2,1) or column of K_h input pixels (IK,OK,1).
  void windowInputs(const ComputeState& s, std::int64_t window, std::vector<std::int64_t>& pixels) const;
  /// (column block, output pixel) for each block of a scatter window's result that lands on an output pixel.
  void scatterTargets(const ComputeState& s, std::int64_t window,
                      std::vector<std::pair<std::int64_t, std::int64_t>>& targets) const;
  std::int64_t ownerCore(const ComputeState& s, std::int64_t pixel) const;
  bool reserveAccumulators(ComputeState& s, std::int64_t window);
  void scatter(ComputeState& s, std::int64_t headAg, std::int64_t window);
  void finishScatterPixel(ComputeState& s, std::int64_t pixel);
  void accumulateInGlobalMemory(ComputeState& s, std::int64_t headAg, std::int64_t block, std::int64_t pixel,
                                bool first);
  /// An ST of `node`'s output pixel by `core` as a new global-memory write, which later LDs of the pixel
  /// read.
  void storeInGlobalMemory(std::int64_t core, xbar::Stage stage, int node, std::int64_t pixel,
                           std::int64_t elements);
  /// The latest write of `node`'s output pixel to global memory, -1 when none.
  std::int64_t latestWrite(int node, std::int64_t pixel) const;
  std::vector<HeldOutput>& heldOutputs(int origin);
  // ll_post.cpp
  bool computePost(PostState& p);
  bool postReady(const PostState& p, std::int64_t pixel);
  void runPool(PostState& p, std::int64_t pixel, std::int64_t out);
  void runVector(PostState& p, std::int64_t pixel, std::int64_t out);
  std::int64_t postOperand(PostState& p, std::size_t slot, std::int64_t pixel, std::int64_t into,
                           std::int64_t intoOffset);
  void dropPostInput(PostState& p, std::size_t slot, std::int64_t pixel);
  void forward(int origin, int from, int next, std::int64_t pixel, const Transfer& where);
  void finishPixel(const Transfer& where);
  void queue(std::vector<Transfer>& list, const Transfer& t);
  // ll_comm.cpp
  bool communicate();
  bool deliverMain(const Transfer& t);
  bool deliverPost(const Transfer& t);
  void settle(const Transfer& t);
  void transfer(const Transfer& t, std::int64_t to, std::int64_t toAddress);
  void spill(const Transfer& t);
  std::int64_t receive(const Transfer& t, std::int64_t core, std::int64_t elements);
  void releaseHeldOutputs();
  // ll_schedule.cpp
  xbar::Instruction& emit(std::int64_t core, xbar::Opcode op, xbar::Stage stage, int node,
                          std::int64_t elements);
  /// An LD, LMV or LLDI, merged into the previous instruction where MergePreparation would merge it.
  void emitCopy(std::int64_t core, xbar::Opcode op, xbar::Stage stage, int node, std::int64_t elements,
                const Operands& at, bool bias = false);
  void unmodelled(std::int64_t core);
  std::int64_t allocate(std::int64_t core, std::int64_t elements, const char* what, int node);
  /// An input pixel's buffer on `core`, or -1: with spilling, only where the core keeps room for what cannot
  /// wait (m_headroom), so a core full of held inputs never blocks the work that would free them.
  std::int64_t holdInput(std::int64_t core, std::int64_t elements);
  /// A post node's output buffer, or -1 (the pixel waits): with spilling, leaving room for partial sums.
  std::int64_t holdPostOutput(std::int64_t core, std::int64_t elements);
  std::int64_t tryAllocateLeaving(std::int64_t core, std::int64_t elements, std::int64_t room);
  void initHeadroom();
  void allocateAgBuffers(std::int64_t ag, int node);
  bool finished() const;
  [[noreturn]] void throwStalled() const;

  const CompilePlan& m_plan;
  LlOptions m_options;
  Graph m_graph;
  LocalMemory m_memory;
  std::int64_t m_cores;
  std::vector<int> m_computeOf, m_postOf;  // node -> index in m_compute / m_post, -1 otherwise
  std::vector<ComputeState> m_compute;
  std::vector<PostState> m_post;
  std::vector<std::int64_t> m_nodeDone;             // pixels computed per node
  std::vector<std::int64_t> m_agInput, m_agOutput;  // per AG: its buffers on its core, -1 before first use
  std::vector<CopyRecord> m_emitted, m_kept;        // per core: see CopyRecord
  std::vector<Transfer> m_mainTransfers, m_postTransfers;   // requested in the current IG
  std::vector<Transfer> m_waiting;                          // requested earlier, receiver's memory was full
  std::vector<std::vector<std::int64_t>> m_inGlobalMemory;  // per node, per output pixel: latestWrite
  /// Spilling only, per core: the largest received partial sum, and the largest post-node output and
  /// scratch (a spilled operand or an average pool's scale) that must still find room.
  std::vector<std::int64_t> m_partialRoom, m_postOutputRoom, m_postScratchRoom;
  std::vector<std::int64_t> m_agBufferRoom;  // spilling only, per core: AG buffers not yet placed
  std::int64_t m_spilledPixels = 0, m_spilledElements = 0, m_spilledAccumulators = 0;
  std::vector<std::int64_t> m_spillTraffic;  // per core: elements stored and loaded for spills
  xbar::InstructionGroup m_ig;
  std::int64_t m_group = 0;
  std::int64_t m_nextComm = 0;
  std::int64_t m_nextWrite = 0;         // the next global-memory write's id
  std::vector<std::int64_t> m_scratch;  // window pixels
};

}  // namespace pim::crossbar::ll
