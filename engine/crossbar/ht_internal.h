// SPDX-License-Identifier: Apache-2.0
// Internals of the HT scheduler (ht_schedule.h), shared by its passes: what every AG computes in which IG,
// the local-memory addresses PIMCOMP-NN's MemoryAllocation gives AG inputs (its instruction merging compares
// them), and the draft instructions the passes rewrite before they become xbar::Instructions.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/crossbar/compile.h"
#include "engine/crossbar/window.h"
#include "sim/crossbar/xbar_program.h"

namespace pim::crossbar::ht {

/// An instruction under construction, with the fields PIMCOMP-NN's later passes match on.
struct Draft {
  xbar::Instruction inst;
  std::int64_t tag = -1;     // PIMCOMP-NN's `destination`: the AG a result lands in (a BIAS load: its node)
  std::int64_t addend = -1;  // MAIN-A VVADD: the AG it adds (placed right after that AG's MVMUL)
  std::int64_t window = -1;  // MVMUL: the output pixel it computes
  bool bias = false;         // the bias LD of IG 0 (never merged)
  // Addresses PIMCOMP-NN compares when it merges loads, copies and fills (global: -provider node, offset).
  std::int64_t srcAddr = 0, srcOff = 0, dstAddr = 0, dstOff = 0;
  std::int64_t index = -1;  // position after MergePreparation (MergeLoadOperation's instruction index)
};
using CoreList = std::vector<Draft>;

struct Context {
  explicit Context(const CompilePlan& p);

  const CompilePlan& plan;
  std::int64_t igCount = 0;
  std::vector<std::vector<std::int32_t>> agWindows;  // per AG: the window it computes in IG 0, 1, ...
  std::vector<std::vector<std::int64_t>> headCore;   // [layer][replica]: core of the replica's AG 0
  std::vector<std::int64_t> agInputAddress;          // per AG: its input buffer on its core (after IG 0)
  std::int64_t nextComm = 0;                         // SEND/RECV pairing index, network-wide
  /// Per layer in a scatter unfolding (others: blocksLeft empty): its window, and per output pixel the blocks
  /// still to add, whether one was, the core every window adding to it runs on (-1: several; its sum then
  /// lives in global memory) and the global-memory write holding that sum (-1 before its first block).
  struct Scatter {
    Window window;
    std::vector<std::int64_t> blocksLeft, ownerCore, write;
    std::vector<char> started;
  };
  std::vector<Scatter> scatter;
  std::int64_t nextWrite = 0;  // Instruction::globalWrite, network-wide

  const ArrayGroup& ag(std::int64_t i) const { return plan.layout.ags[i]; }
  const NetworkNode& nodeOf(std::int64_t agIndex) const {
    return plan.network.nodes[plan.layers[ag(agIndex).layer].node];
  }
  std::int64_t cores() const { return plan.accelerator.cores(); }
  /// Whether AG `agIndex`'s layer is in a scatter unfolding (its windows' results land on several pixels).
  bool scatters(std::int64_t agIndex) const { return !scatter[ag(agIndex).layer].blocksLeft.empty(); }
};

bool hasBias(const NetworkNode& n);
/// The vector opcode of a fused activation.
xbar::Opcode activationOpcode(ActType t);

/// PIMCOMP-NN's BatchPipelineSchedule stages 0 to ACT and ScheduleMerge for IG `ig`: per core, bias loads
/// (IG 0), MVMUL and bias VVADD, MAIN-A partial sums, SEND/RECV/MAIN-C across cores, activations.
std::vector<CoreList> buildBody(Context& ctx, std::int64_t ig);

/// MemoryAllocation's input buffer of every AG, from IG 0's body (all IGs share it).
void allocateInputBuffers(Context& ctx, const std::vector<CoreList>& ig0);

/// DataReload and InstructionOptimization on one core's body: input preparation before each MVMUL (LD from
/// global memory, LMV reusing an earlier load, LLDI for padding), ST of each replica's output (a scatter
/// layer's: its blocks added to their pixels' sums, on the core or in global memory), then the merging of
/// contiguous loads, copies and fills and the grouping of short loads into 64-element ones. Called core by
/// core in order: the order of a scatter pixel's additions.
CoreList withDataMovement(Context& ctx, const CoreList& body);

/// InstructionOptimization alone (post IGs): merging of contiguous loads, copies and fills, short loads
/// grouped into 64-element ones.
CoreList mergeLoads(const Network& net, const CoreList& list);

/// POOL/ELTWISE/CONCAT/activation nodes, one IG each in PIMCOMP-NN's pick order (HtOptions::postNodes).
/// Calls `emit` per IG; stops when it returns false and then returns false.
bool emitPostNodes(const CompilePlan& plan, const std::function<bool(std::vector<CoreList>&)>& emit);

}  // namespace pim::crossbar::ht
