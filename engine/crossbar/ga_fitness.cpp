// SPDX-License-Identifier: Apache-2.0
// The GA's fitness (../shared/specs/crossbar.md, "Weight replication", GA paragraph and dac23's analytic HT
// fitness; pimcomp-nn GeneticAlgorithm.cpp FastEvaluationForBatch/ForElement/InstructionGroupNum).
#include "engine/crossbar/ga_fitness.h"

#include <algorithm>
#include <limits>

#include "engine/common/int_math.h"
#include "engine/crossbar/ll_schedule.h"

namespace pim::crossbar::ga {
namespace {

using xbar::Instruction;
using xbar::Opcode;

// Nodes PIMCOMP-NN's LL fast evaluation looks through when it follows a layer to its consumer.
bool ignoredInLl(NetworkOp op) { return op == NetworkOp::Input || passesThroughInLl(op); }

// Per-thread buffers of the fast evaluation: individuals are evaluated on several threads at once, and
// reusing the lists' capacity saves most of an evaluation's allocations.
struct Scratch {
  xbar::InstructionGroup ig;
  std::vector<std::vector<Instruction>> comms;
  std::vector<Instruction> stores;
  std::vector<std::pair<int, std::int64_t>> genes;
  std::vector<std::int64_t> seen;
  std::vector<int> firstCore;
};

Scratch& scratch(int cores) {
  thread_local Scratch s;
  s.ig.cores.resize(std::size_t(cores));
  s.comms.resize(std::size_t(cores));
  for (int c = 0; c < cores; ++c) {
    s.ig.cores[std::size_t(c)].clear();
    s.comms[std::size_t(c)].clear();
  }
  return s;
}

// A core's genes as (unit, count), sorted by unit (PIMCOMP-NN sorts a core's genes before it evaluates).
const std::vector<std::pair<int, std::int64_t>>& sortedGenes(
    const GaProblem& p, const Chromosome& c, int core, std::vector<std::pair<int, std::int64_t>>& genes) {
  genes.clear();
  for (int s = 0; s < c.kinds[std::size_t(core)]; ++s) {
    const std::int32_t g = c.genes[std::size_t(core * p.kindsPerCore + s)];
    genes.push_back({geneUnit(g), geneCount(g)});
  }
  std::sort(genes.begin(), genes.end());
  return genes;
}

// The fraction of its input a CONV or POOL waits for before its first output: the padded input's pixels
// that are not yet one output each (PIMCOMP-NN's EP delay ratio, simplified to the padded input area).
double windowWait(const NetworkNode& n, bool fedByInput) {
  if (fedByInput) return 0.0;
  const bool conv = n.op == NetworkOp::Conv;
  const std::int64_t padH = conv ? n.conv.pad_h0 + n.conv.pad_h1 : n.pool.pad_h0 + n.pool.pad_h1;
  const std::int64_t padW = conv ? n.conv.pad_w0 + n.conv.pad_w1 : n.pool.pad_w0 + n.pool.pad_w1;
  const double in = double((n.input_dim[2] + padH) * (n.input_dim[3] + padW));
  const double out = double(n.output_dim[2] * n.output_dim[3]);
  return std::max(0.0, (in - out) / in);
}

std::vector<LlNode> llGraph(const CompilePlan& plan) {
  std::vector<LlNode> nodes(plan.network.nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NetworkNode& n = plan.network.nodes[i];
    LlNode& g = nodes[i];
    g.providers = n.providers;
    g.consumers = n.consumers;
    const bool fedByInput =
        n.providers.size() == 1 && plan.network.nodes[std::size_t(n.providers[0])].op == NetworkOp::Input;
    if (n.op == NetworkOp::Input) {
      g.kind = LlNode::Kind::Input;
    } else if (n.op == NetworkOp::Conv || n.op == NetworkOp::Fc) {
      g.kind = LlNode::Kind::Layer;
      g.layer = plan.layerOfNode[i];
      g.wait = n.op == NetworkOp::Fc ? (fedByInput ? 0.0 : 1.0) : windowWait(n, fedByInput);
    } else if (n.op == NetworkOp::Pool && n.input_dim.size() == 4 && n.output_dim.size() == 4) {
      g.kind = LlNode::Kind::Pool;
      g.wait = windowWait(n, fedByInput);
    }
  }
  return nodes;
}

}  // namespace

FitnessModel::FitnessModel(const GaProblem& p, PipelineMode mode, const xbar::TimingParams& timing)
    : m_problem(&p), m_mode(mode), m_timing(timing), m_nodes(llGraph(*p.plan)) {
  xbar::validate(timing);
  const CompilePlan& plan = *p.plan;
  for (const GaUnit& u : p.units) {
    const LayerPartition& l = plan.layers[std::size_t(u.layer)];
    const NetworkNode& node = plan.network.nodes[std::size_t(l.node)];
    UnitStream s;
    s.loadFull = plan.accelerator.rows;
    // PIMCOMP-NN: a later replica on the core loads only rows x stride^2 / kernel^2 (float, truncated).
    float rate = 1.0f;
    if (l.op == NetworkOp::Conv)
      rate = float(node.conv.stride_h * node.conv.stride_w) / float(node.conv.kernel_h * node.conv.kernel_w);
    s.loadReuse = static_cast<std::int64_t>(float(s.loadFull) * rate);
    s.store = u.agp == 1 ? node.output_dim[1] : u.cols;
    // The consumer PIMCOMP-NN's LL evaluation sends to: the first consumer, looked through ignored nodes.
    int consumer = node.consumers.empty() ? -1 : node.consumers[0];
    while (consumer >= 0 && ignoredInLl(plan.network.nodes[std::size_t(consumer)].op)) {
      const auto& next = plan.network.nodes[std::size_t(consumer)].consumers;
      consumer = next.empty() ? -1 : next[0];
    }
    if (consumer >= 0 && plan.layerOfNode[std::size_t(consumer)] >= 0)
      s.consumerUnit = p.unitsOfLayer[std::size_t(plan.layerOfNode[std::size_t(consumer)])][0];
    else if (consumer >= 0)
      s.consumerCore = consumer % p.cores;
    m_streams.push_back(s);
  }
}

double FitnessModel::evaluate(const Chromosome& c, GaFitness kind) const {
  if (kind == GaFitness::Analytic) return m_mode == PipelineMode::Ht ? analyticHt(c) : analyticLl(c);
  return m_mode == PipelineMode::Ht ? fastHt(c) : fastLl(c);
}

double FitnessModel::perWindowNs(std::int64_t activeAgs) const {
  const double interval = double(m_timing.mvmIssueIntervalNs), mvm = double(m_timing.mvmLatencyNs);
  return double(activeAgs) > mvm / interval ? double(activeAgs) * interval : mvm;
}

const xbar::InstructionGroup& FitnessModel::htGroup(const Chromosome& c,
                                                    std::vector<std::int64_t>& coreIgs) const {
  const GaProblem& p = *m_problem;
  Scratch& buf = scratch(p.cores);
  coreIgs.assign(std::size_t(p.cores), 0);
  std::vector<std::int64_t>& seen = buf.seen;  // AGs of each unit met so far, in core order
  seen.assign(p.units.size(), 0);
  std::int32_t ag = 0;
  std::vector<Instruction>& stores = buf.stores;
  for (int core = 0; core < p.cores; ++core) {
    std::vector<Instruction>& list = buf.ig.cores[std::size_t(core)];
    stores.clear();
    for (const auto& [u, n] : sortedGenes(p, c, core, buf.genes)) {
      const GaUnit& unit = p.units[std::size_t(u)];
      const UnitStream& s = m_streams[std::size_t(u)];
      coreIgs[std::size_t(core)] =
          std::max(coreIgs[std::size_t(core)], ceilDiv(unit.windows, c.replicas[std::size_t(u)]));
      for (std::int64_t k = 0; k < n; ++k, ++ag) {
        Instruction ld{Opcode::Ld};
        ld.elements = k < unit.agsPerReplica ? s.loadFull : s.loadReuse;
        list.push_back(ld);
        Instruction mvm{Opcode::Mvmul};
        mvm.ag = ag;
        mvm.crossbars = static_cast<std::int32_t>(unit.crossbarsPerAg);
        list.push_back(mvm);
        if (seen[std::size_t(u)]++ % unit.agsPerReplica == 0) {
          Instruction st{Opcode::St};
          st.elements = s.store;
          stores.push_back(st);
        }
      }
    }
    list.insert(list.end(), stores.begin(), stores.end());  // write-backs after the core's MVMs
  }
  return buf.ig;
}

double FitnessModel::fastHt(const Chromosome& c) const {
  std::vector<std::int64_t> coreIgs;
  const xbar::InstructionGroup& ig = htGroup(c, coreIgs);
  xbar::Profiler profiler(m_problem->cores, m_timing);
  profiler.group(ig);
  const xbar::ProfileResult first = profiler.result();
  profiler.group(ig);
  const xbar::ProfileResult second = profiler.result();
  double worst = 0;
  for (std::size_t core = 0; core < first.cores.size(); ++core) {
    if (coreIgs[core] == 0) continue;  // an idle core
    const double t1 = double(first.cores[core].endNs), t2 = double(second.cores[core].endNs);
    worst = std::max(worst, (t2 - t1) * double(coreIgs[core] - 1) + t1);
  }
  return worst;
}

const xbar::InstructionGroup& FitnessModel::llGroup(const Chromosome& c) const {
  const GaProblem& p = *m_problem;
  Scratch& buf = scratch(p.cores);
  // The lowest core holding each unit holds its first AG (decode fills genes in increasing core order).
  std::vector<int>& firstCore = buf.firstCore;
  firstCore.assign(p.units.size(), -1);
  for (int core = p.cores - 1; core >= 0; --core)
    for (int s = 0; s < c.kinds[std::size_t(core)]; ++s)
      firstCore[std::size_t(geneUnit(c.genes[std::size_t(core * p.kindsPerCore + s)]))] = core;
  xbar::InstructionGroup& ig = buf.ig;
  std::vector<std::vector<Instruction>>& comms = buf.comms;
  std::vector<std::int64_t>& seen = buf.seen;
  seen.assign(p.units.size(), 0);
  std::int32_t ag = 0;
  std::int64_t comm = 0;
  for (int core = 0; core < p.cores; ++core) {
    for (const auto& [u, n] : sortedGenes(p, c, core, buf.genes)) {
      const GaUnit& unit = p.units[std::size_t(u)];
      const UnitStream& s = m_streams[std::size_t(u)];
      const int to = s.consumerUnit >= 0 ? firstCore[std::size_t(s.consumerUnit)] : s.consumerCore;
      for (std::int64_t k = 0; k < n; ++k, ++ag) {
        Instruction mvm{Opcode::Mvmul};
        mvm.ag = ag;
        mvm.crossbars = static_cast<std::int32_t>(unit.crossbarsPerAg);
        ig.cores[std::size_t(core)].push_back(mvm);
        if (seen[std::size_t(u)]++ % unit.agsPerReplica != 0 || to < 0 || to == core) continue;
        // Comm indices grow in creation order on every core, so the rendezvous order cannot deadlock.
        Instruction send{Opcode::Send}, recv{Opcode::Recv};
        send.elements = recv.elements = s.store;
        send.peer = to;
        recv.peer = core;
        send.comm = recv.comm = comm++;
        comms[std::size_t(core)].push_back(send);
        comms[std::size_t(to)].push_back(recv);
      }
    }
  }
  for (int core = 0; core < p.cores; ++core) {
    auto& list = ig.cores[std::size_t(core)];
    list.insert(list.end(), comms[std::size_t(core)].begin(), comms[std::size_t(core)].end());
  }
  return ig;
}

double FitnessModel::fastLl(const Chromosome& c) const {
  xbar::Profiler profiler(m_problem->cores, m_timing);
  profiler.group(llGroup(c));
  return llInstructionGroups(c.replicas) * double(profiler.result().totalNs);
}

double FitnessModel::analyticHt(const Chromosome& c) const {
  const GaProblem& p = *m_problem;
  double worst = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> layers;  // (windows per AG, AGs) on the core
  std::vector<std::pair<int, std::int64_t>> genes;
  for (int core = 0; core < p.cores; ++core) {
    layers.clear();
    std::int64_t active = 0;
    for (const auto& [u, n] : sortedGenes(p, c, core, genes)) {
      layers.push_back({ceilDiv(p.units[std::size_t(u)].windows, c.replicas[std::size_t(u)]), n});
      active += n;
    }
    std::sort(layers.begin(), layers.end());
    double time = 0;
    std::int64_t done = 0;  // windows every active AG has computed so far
    for (const auto& [w, n] : layers) {
      time += double(w - done) * perWindowNs(active);
      active -= n;
      done = w;
    }
    worst = std::max(worst, time);
  }
  return worst;
}

double FitnessModel::analyticLl(const Chromosome& c) const {
  const GaProblem& p = *m_problem;
  double worst = 0;
  for (int core = 0; core < p.cores; ++core) {
    std::int64_t ags = 0;
    for (int s = 0; s < c.kinds[std::size_t(core)]; ++s)
      ags += geneCount(c.genes[std::size_t(core * p.kindsPerCore + s)]);
    if (ags > 0) worst = std::max(worst, perWindowNs(ags));
  }
  return llInstructionGroups(c.replicas) * worst;
}

double FitnessModel::llInstructionGroups(const std::vector<std::int64_t>& unitReplicas) const {
  const GaProblem& p = *m_problem;
  constexpr double kNone = std::numeric_limits<double>::infinity();  // no replica cap (the input)
  const std::size_t count = m_nodes.size();
  std::vector<double> reps(count, kNone), run(count, 1.0);
  for (std::size_t i = 0; i < count; ++i) {  // forward: replicas capped by the producers'
    const LlNode& n = m_nodes[i];
    double in = kNone;
    for (int prov : n.providers) in = std::min(in, reps[std::size_t(prov)]);
    reps[i] = in;
    if (n.kind == LlNode::Kind::Layer)
      reps[i] = std::min(in, double(unitReplicas[std::size_t(p.unitsOfLayer[std::size_t(n.layer)][0])]));
    if (n.kind == LlNode::Kind::Layer || n.kind == LlNode::Kind::Pool)
      run[i] = (1.0 - n.wait) * (in != kNone && reps[i] < in ? in / reps[i] : 1.0);
  }
  std::vector<double> whole(count, 1.0);  // backward: the path recursion from each node to the end
  for (std::size_t i = count; i-- > 0;) {
    double best = m_nodes[i].consumers.empty() ? 1.0 : 0.0;
    for (int cons : m_nodes[i].consumers) {
      const LlNode& cn = m_nodes[std::size_t(cons)];
      const bool stage = cn.kind == LlNode::Kind::Layer || cn.kind == LlNode::Kind::Pool;
      best = std::max(best, stage ? cn.wait + run[std::size_t(cons)] * whole[std::size_t(cons)]
                                  : whole[std::size_t(cons)]);
    }
    whole[i] = best;
  }
  double groups = 1.0;  // the first layers: CONV/FC fed by no other CONV/FC/POOL
  for (std::size_t i = 0; i < count; ++i) {
    const LlNode& n = m_nodes[i];
    if (n.kind != LlNode::Kind::Layer) continue;
    bool first = true;
    for (int prov : n.providers) first = first && m_nodes[std::size_t(prov)].kind == LlNode::Kind::Input;
    if (!first) continue;
    const std::int64_t windows = p.units[std::size_t(p.unitsOfLayer[std::size_t(n.layer)][0])].windows;
    groups = std::max(groups, double(ceilDiv(windows, std::int64_t(reps[i]))) * whole[i]);
  }
  return groups;
}

}  // namespace pim::crossbar::ga
