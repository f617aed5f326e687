// SPDX-License-Identifier: Apache-2.0
// The LL (element pipeline, low-latency) scheduler: per instruction group (IG), per core, the pseudo-
// instructions of one inference at batch 1, each replica computing its next output pixel as soon as the
// input pixels it needs have arrived (../shared/specs/crossbar.md, "Scheduling", LL; tcad VII-B, Algorithm 2;
// pimcomp-nn ElementPipelineSchedule.cpp, MemoryManager.cpp). IGs go to an IProgramSink one at a time.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/crossbar/accelerator.h"
#include "engine/crossbar/compile.h"
#include "sim/crossbar/xbar_program.h"

namespace pim::crossbar {

/// PIMCOMP-NN's local memory per core in the LL schedule: 128 M elements, in effect unbounded.
inline constexpr std::int64_t kPimcompNnLocalMemoryElements = std::int64_t{128} * 1024 * 1024;

/// Where a POOL/ELTWISE/CONCAT/activation node runs (the whole node on one core).
enum class LlPostPlacement {
  NodeIndex,  // PIMCOMP-NN as implemented: core = node index mod cores
  MostInput,  // tcad VI-B: the core where most of the node's input elements are produced
};

struct LlOptions {
  /// Local memory per core, in elements, managed first fit. A pixel transfer, a network-input load or a
  /// post-node output that finds no room waits for a later IG (its producer waits with it); an AG, bias or
  /// scratch buffer that finds none, or an IG in which nothing can progress, is an InputError. PIMCOMP-NN's
  /// 128 M never fills, so nothing waits.
  std::int64_t localMemoryElements = kPimcompNnLocalMemoryElements;
  /// Stop after this many IGs even if the last node has not finished (0: run to completion). PIMCOMP-NN
  /// always stops at pimcompNnIgCap(network name); PIMScope only does so when asked.
  std::int64_t maxInstructionGroups = 0;
  LlPostPlacement postPlacement = LlPostPlacement::NodeIndex;
  /// An input pixel (of a CONV/FC or a post node) that finds no room on a core that reads it goes through
  /// global memory instead of waiting: its producer stores it once (ST) and each read loads it (LD), as tcad
  /// VII-A keeps a result on chip "or stores it back to global memory based on the capacity of the local
  /// memory" (ll_spill.cpp, with the headroom that keeps it from sticking). Off, such a transfer waits
  /// (PIMCOMP-NN's memory never fills), which can leave no node able to progress.
  bool spillToGlobalMemory = false;
};

/// PIMCOMP-NN's IG cap: 15,000 for a network named "vgg16", else 2,000.
std::int64_t pimcompNnIgCap(std::string_view networkName);

/// Operations PIMCOMP-NN's element pipeline looks through (their data passes unchanged to the consumer): the
/// LL schedule and the GA's LL fitness follow a layer to its consumer past them.
bool passesThroughInLl(NetworkOp op);

/// The core's local memory in elements of acc.elementBits (Intended) or PIMCOMP-NN's 128 M (PimcompNn).
std::int64_t llLocalMemoryElements(const Accelerator& acc, TimingMode mode);

struct LlScheduleSummary {
  std::int64_t instructionGroups = 0;
  std::int64_t mvms = 0;
  std::int64_t instructions = 0;
  std::array<std::int64_t, 12> perOpcode{};  // indexed by xbar::Opcode
  std::int64_t sendRecvPairs = 0;
  std::vector<std::int64_t> localMemoryPeak;  // per core: most elements held at once
  /// With LlOptions::spillToGlobalMemory: pixels stored to global memory for want of room, and their
  /// elements; reads of them (LDs) are in perOpcode.
  std::int64_t spilledPixels = 0, spilledElements = 0;
  /// Of those, scatter layers' accumulators that found no room and were summed in global memory.
  std::int64_t spilledAccumulators = 0;
  /// With spilling, per core: elements it stored (its spills) and loaded (spilled inputs it read).
  std::vector<std::int64_t> spillTraffic;
  std::vector<int> lastNodes;  // the nodes whose completion ends the schedule
  bool completed = false;      // every last node finished (not capped, not cancelled)
  bool cancelled = false;      // the sink returned false

  std::int64_t count(xbar::Opcode op) const { return perOpcode[static_cast<std::size_t>(op)]; }
  std::int64_t maxLocalMemoryPeak() const;
};

/// Emits the LL program of `plan` to `sink`. All five unfoldings run; a scatter one (I,OK2,1, IK,OK,1) only
/// where a band fits one core (agp 1). Throws InputError for a scatter unfolding wider, an operation the
/// element pipeline cannot run (PAD, SHUFFLE, SHAPE, GATHER, UNSQUEEZE), or a schedule that cannot go on (see
/// LlOptions::localMemoryElements; also a node that never receives its input).
LlScheduleSummary scheduleLl(const CompilePlan& plan, const LlOptions& options, xbar::IProgramSink& sink);

}  // namespace pim::crossbar
