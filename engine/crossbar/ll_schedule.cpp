// SPDX-License-Identifier: Apache-2.0
// The LL scheduler's driver (../shared/specs/crossbar.md, "Scheduling", LL; tcad Algorithm 2; pimcomp-nn
// ElementPipelineSchedule.cpp ScheduleSplitInstruction): per IG, every node in node order computes what is
// ready, the IG's transfers are issued at its end, and the IG goes to the sink; the schedule ends in the IG
// in which the last node finishes (that IG's transfers are never issued, as in PIMCOMP-NN).
#include <algorithm>

#include "engine/common/error.h"
#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar {

std::int64_t pimcompNnIgCap(std::string_view networkName) { return networkName == "vgg16" ? 15000 : 2000; }

std::int64_t llLocalMemoryElements(const Accelerator& acc, TimingMode mode) {
  if (mode == TimingMode::PimcompNn) return kPimcompNnLocalMemoryElements;
  return acc.localMemoryBytes * 8 / acc.elementBits;
}

std::int64_t LlScheduleSummary::maxLocalMemoryPeak() const {
  return localMemoryPeak.empty() ? 0 : *std::max_element(localMemoryPeak.begin(), localMemoryPeak.end());
}

namespace ll {

Scheduler::Scheduler(const CompilePlan& plan, const LlOptions& options)
    : m_plan(plan),
      m_options(options),
      m_graph(plan.network),
      m_memory(plan.accelerator.cores(), options.localMemoryElements),
      m_cores(plan.accelerator.cores()) {
  const std::size_t nodes = plan.network.nodes.size();
  m_computeOf.assign(nodes, -1);
  m_postOf.assign(nodes, -1);
  m_nodeDone.assign(nodes, 0);
  m_agInput.assign(plan.layout.ags.size(), -1);
  m_agOutput.assign(plan.layout.ags.size(), -1);
  m_inGlobalMemory.resize(nodes);
  m_spillTraffic.assign(m_cores, 0);
  m_emitted.resize(m_cores);
  m_kept.resize(m_cores);
  m_compute.reserve(plan.layers.size());
  for (std::size_t n = 0; n < nodes; ++n) {
    const Role role = m_graph.role[n];
    if (role == Role::Compute)
      initCompute(static_cast<int>(n));
    else if (role == Role::Pool || role == Role::Eltwise || role == Role::Concat || role == Role::Activation)
      initPost(static_cast<int>(n));
  }
  if (m_graph.lastNodes.empty()) throw InputError(plan.networkName + ": the LL schedule finds no last node");
  m_ig.cores.resize(m_cores);
}

xbar::Instruction& Scheduler::emit(std::int64_t core, xbar::Opcode op, xbar::Stage stage, int node,
                                   std::int64_t elements) {
  xbar::Instruction inst;
  inst.op = op;
  inst.stage = stage;
  inst.node = node;
  inst.elements = elements;
  m_emitted[core] = m_kept[core] = {op, {}, elements};
  return m_ig.cores[core].emplace_back(inst);
}

// MergePreparation (pimcomp-nn InstructionOptimization.cpp, run on the LL program too): an LD continues the
// list's last LD when both source and destination run on (and, spilling, it reads the same global-memory
// write: each LD waits for its own); an LMV or LLDI continues the instruction emitted
// just before it when that is one of its kind writing the next elements of the same buffer (an LMV also
// needs its source buffer to start where the previous one's ended). A core's first instruction of an IG
// never merges.
void Scheduler::emitCopy(std::int64_t core, xbar::Opcode op, xbar::Stage stage, int node,
                         std::int64_t elements, const Operands& at, bool bias) {
  const CopyRecord prev = m_emitted[core], &kept = m_kept[core];
  bool merge = false;
  if (!m_ig.cores[core].empty()) {
    if (op == xbar::Opcode::Ld && !bias) {
      merge = kept.op == op && kept.at.src == at.src && kept.at.srcOff + kept.elements == at.srcOff &&
              kept.at.dst + kept.elements == at.dst && kept.at.dstOff == at.dstOff &&
              kept.at.srcWrite == at.srcWrite;
    } else if (op == xbar::Opcode::Lmv) {
      merge = prev.op == op && prev.at.src + prev.elements == at.src && prev.at.srcOff == at.srcOff &&
              prev.at.dst == at.dst && prev.at.dstOff + prev.elements == at.dstOff;
    } else if (op == xbar::Opcode::Lldi) {
      merge = prev.op == op && prev.at.dst == at.dst && prev.at.dstOff + prev.elements == at.dstOff;
    }
  }
  if (merge) {
    m_ig.cores[core].back().elements += elements;
    m_kept[core].elements += elements;
    m_emitted[core] = {op, at, elements};
    return;
  }
  emit(core, op, stage, node, elements).globalWrite = op == xbar::Opcode::Ld ? at.srcWrite : -1;
  m_emitted[core] = m_kept[core] = {op, at, elements};
}

// An instruction PIMCOMP-NN emits that has no opcode here (VER, VVMUL, VSUB, VRSU, VRSL) and no time in its
// evaluator: nothing is emitted, but it still stands between its neighbours for MergePreparation.
void Scheduler::unmodelled(std::int64_t core) { m_emitted[core] = m_kept[core] = CopyRecord{}; }

std::int64_t Scheduler::allocate(std::int64_t core, std::int64_t elements, const char* what, int node) {
  return m_memory.allocate(
      core, elements,
      std::string(what) + " of node " + std::to_string(node) + " '" + m_plan.network.nodes[node].name + "'");
}

bool Scheduler::finished() const {
  return std::all_of(m_graph.lastNodes.begin(), m_graph.lastNodes.end(),
                     [&](int n) { return m_nodeDone[n] >= m_graph.pixels[n]; });
}

void Scheduler::throwStalled() const {
  // The first few unfinished nodes name where it stuck; the rest are counted (a message is one line).
  constexpr int kNamed = 4;
  std::string pending;
  int unfinished = 0;
  for (std::size_t n = 0; n < m_nodeDone.size(); ++n) {
    if ((m_computeOf[n] < 0 && m_postOf[n] < 0) || m_nodeDone[n] >= m_graph.pixels[n]) continue;
    if (++unfinished <= kNamed)
      pending +=
          (pending.empty() ? "" : ", ") + std::to_string(n) + " '" + m_plan.network.nodes[n].name + "'";
  }
  if (unfinished > kNamed) pending += " and " + std::to_string(unfinished - kNamed) + " more";
  const std::string waiting = m_waiting.empty()
                                  ? std::string()
                                  : " (" + std::to_string(m_waiting.size()) +
                                        " transfers wait for room in a local memory of " +
                                        std::to_string(m_options.localMemoryElements) + " elements)";
  throw InputError(m_plan.networkName + ": LL schedule: no node can progress at IG " +
                   std::to_string(m_group) + waiting + "; unfinished: " + pending);
}

LlScheduleSummary Scheduler::run(xbar::IProgramSink& sink) {
  LlScheduleSummary summary;
  summary.lastNodes = m_graph.lastNodes;
  for (m_group = 0; m_options.maxInstructionGroups <= 0 || m_group < m_options.maxInstructionGroups;
       ++m_group) {
    m_memory.setGroup(m_group);
    for (auto& list : m_ig.cores) list.clear();
    if (m_group == 0) {
      loadBiases();
      if (m_options.spillToGlobalMemory) initHeadroom();
    }
    bool progressed = false;
    for (std::size_t n = 0; n < m_computeOf.size(); ++n) {
      if (m_computeOf[n] >= 0) {
        ComputeState& s = m_compute[m_computeOf[n]];
        for (std::int64_t r = 0; r < s.replicas; ++r) progressed |= computeReplica(s, r);
      } else if (m_postOf[n] >= 0) {
        progressed |= computePost(m_post[m_postOf[n]]);
      }
    }
    const bool done = finished();
    // Nothing computed and nothing issued: memory and readiness stay as they are, so no later IG differs.
    if (!done && !communicate() && !progressed) throwStalled();
    releaseHeldOutputs();
    for (const auto& list : m_ig.cores) {
      for (const xbar::Instruction& inst : list) ++summary.perOpcode[static_cast<std::size_t>(inst.op)];
      summary.instructions += static_cast<std::int64_t>(list.size());
    }
    ++summary.instructionGroups;
    if (!sink.group(m_ig)) {
      summary.cancelled = true;
      break;
    }
    if (done) {
      summary.completed = true;
      break;
    }
  }
  summary.mvms = summary.count(xbar::Opcode::Mvmul);
  summary.sendRecvPairs = summary.count(xbar::Opcode::Send);
  summary.localMemoryPeak = m_memory.peak();
  summary.spilledPixels = m_spilledPixels;
  summary.spilledElements = m_spilledElements;
  summary.spilledAccumulators = m_spilledAccumulators;
  if (m_options.spillToGlobalMemory) summary.spillTraffic = m_spillTraffic;
  return summary;
}

}  // namespace ll

LlScheduleSummary scheduleLl(const CompilePlan& plan, const LlOptions& options, xbar::IProgramSink& sink) {
  ll::Scheduler scheduler(plan, options);
  return scheduler.run(sink);
}

}  // namespace pim::crossbar
