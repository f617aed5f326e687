// SPDX-License-Identifier: Apache-2.0
// LL scheduler set-up (../shared/specs/crossbar.md, "Scheduling", LL; tcad VII-B, Fig. 9 A.1-A.4): which
// replica computes which output pixel, which input pixels each (AG, output pixel) reads on which core and how
// often (pimcomp-nn ElementPipelineSchedule.cpp SchedulePreparation, PrepareDependency, PrepareMemoryINFO),
// and where each post node runs.
#include <algorithm>

#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {
namespace {

void addUse(std::vector<ChannelUse>& uses, std::int64_t core) {
  for (ChannelUse& u : uses) {
    if (u.core == core) {
      ++u.rest;
      return;
    }
  }
  uses.push_back({core, 1, -1});
}

bool overlaps(const ArrayGroup& ag, std::int64_t first, std::int64_t last) {
  return ag.rowStart <= last && ag.rowStart + ag.rows - 1 >= first;
}

}  // namespace

void Scheduler::initCompute(int node) {
  const NetworkNode& nn = m_plan.network.nodes[node];
  const int li = m_plan.layerOfNode[node];
  ComputeState s;
  s.node = node;
  s.layer = &m_plan.layers[li];
  s.replicas = m_plan.replicas[li];
  s.bands = s.layer->agsPerReplica;
  for (int i = 0; i < li; ++i) s.firstAg += m_plan.replicas[i] * m_plan.layers[i].agsPerReplica;
  s.firstLayer = !nn.providers.empty() && m_graph.role[nn.providers[0]] == Role::Input;
  if (nn.op == NetworkOp::Conv) {
    s.withBias = nn.conv.with_bias;
    s.inputChannels = m_graph.window[node].inH * m_graph.window[node].inW;
    s.channelElements = nn.conv.input_channel;
  } else {
    s.withBias = nn.fc.with_bias;
    // An FC after a CONV or POOL waits for all of that node's pixels, one after an FC for its one output;
    // pass-through and vector nodes in between are looked through (pimcomp-nn key_input_channel_index).
    int p = m_graph.providers[node].empty() ? -1 : m_graph.providers[node][0];
    while (p >= 0 && m_graph.role[p] != Role::Compute && m_graph.role[p] != Role::Pool)
      p = m_graph.providers[p].empty() ? -1 : m_graph.providers[p][0];
    if (p >= 0 && (m_graph.role[p] == Role::Pool || m_plan.network.nodes[p].op == NetworkOp::Conv)) {
      s.inputChannels = m_graph.pixels[p];
      s.channelElements = m_graph.channelElements[p];
    } else {
      s.inputChannels = 1;
      s.channelElements = nn.fc.num_input;
    }
    s.fcKey = s.inputChannels - 1;
  }
  s.uses.resize(s.inputChannels);
  s.ready.assign(s.inputChannels, 0);
  s.loaded.assign(s.inputChannels, 0);
  s.produced.assign(s.replicas, 0);
  s.undelivered.assign(s.replicas, 0);
  s.windows = m_graph.pixels[node];
  if (nn.op == NetworkOp::Conv && !multipliesWholeWindows(s.layer->unfolding)) initScatter(s);
  if (nn.op == NetworkOp::Conv)
    countConvUses(s);
  else
    countFcUses(s);
  for (auto& u : s.uses)
    std::sort(u.begin(), u.end(), [](const ChannelUse& a, const ChannelUse& b) { return a.core < b.core; });
  m_computeOf[node] = static_cast<int>(m_compute.size());
  m_compute.push_back(std::move(s));
}

// Window o belongs to replica o mod replicas; window position n holds elements [n*C, (n+1)*C) of the
// window vector, and every AG band of that replica whose rows meet them reads the input pixel once.
void Scheduler::countConvUses(ComputeState& s) {
  const std::int64_t c = s.channelElements;
  const auto& ags = m_plan.layout.ags;
  for (std::int64_t o = 0; o < s.windows; ++o) {
    const std::int64_t head = s.firstAg + (o % s.replicas) * s.bands;
    windowInputs(s, o, m_scratch);
    for (std::size_t n = 0; n < m_scratch.size(); ++n) {
      if (m_scratch[n] < 0) continue;
      const std::int64_t first = std::int64_t(n) * c, last = first + c - 1;
      for (std::int64_t b = 0; b < s.bands; ++b)
        if (overlaps(ags[head + b], first, last)) addUse(s.uses[m_scratch[n]], ags[head + b].core);
    }
  }
}

// Every AG of every replica of an FC counts as a reader of every input pixel its rows meet (pimcomp-nn
// node_AG_mapping); only replica 0 ever computes the FC's one output pixel.
void Scheduler::countFcUses(ComputeState& s) {
  const auto& ags = m_plan.layout.ags;
  for (std::int64_t ch = 0; ch < s.inputChannels; ++ch) {
    const std::int64_t first = ch * s.channelElements, last = first + s.channelElements - 1;
    for (std::int64_t a = s.firstAg; a < s.firstAg + s.replicas * s.bands; ++a)
      if (overlaps(ags[a], first, last)) addUse(s.uses[ch], ags[a].core);
  }
}

void Scheduler::initPost(int node) {
  PostState p;
  p.node = node;
  p.core = placePost(node);
  const NetworkNode& nn = m_plan.network.nodes[node];
  if (m_graph.role[node] == Role::Pool) {
    const Window& w = m_graph.window[node];
    p.inputs.assign(1, std::vector<PostInput>(w.inH * w.inW));
    p.slotElements.assign(1, nn.input_dim.size() >= 2 ? nn.input_dim[1] : 1);
    for (std::int64_t o = 0; o < m_graph.pixels[node]; ++o) {
      w.inputsOf(o, m_scratch);
      for (std::int64_t in : m_scratch)
        if (in >= 0) ++p.inputs[0][in].rest;
    }
  } else {
    for (int provider : m_graph.providers[node]) {
      p.inputs.emplace_back(m_graph.pixels[node]);
      p.slotElements.push_back(m_graph.channelElements[provider]);
    }
  }
  p.done.assign(m_graph.pixels[node], 0);
  m_postOf[node] = static_cast<int>(m_post.size());
  m_post.push_back(std::move(p));
}

std::int64_t Scheduler::placePost(int node) const {
  if (m_options.postPlacement == LlPostPlacement::NodeIndex) return node % m_cores;
  std::vector<std::int64_t> elements(m_cores, 0);
  std::vector<int> sources(m_graph.providers[node]);
  while (!sources.empty()) {
    const int p = sources.back();
    sources.pop_back();
    if (m_graph.role[p] == Role::PassThrough) {
      sources.insert(sources.end(), m_graph.providers[p].begin(), m_graph.providers[p].end());
    } else if (m_graph.role[p] == Role::Compute) {
      const ComputeState& s = m_compute[m_computeOf[p]];
      for (std::int64_t o = 0; o < m_graph.pixels[p]; ++o) {
        const ArrayGroup& head = m_plan.layout.ags[s.firstAg + (o % s.replicas) * s.bands];
        elements[head.core] += s.scatter ? m_graph.channelElements[p] : head.cols;  // where output o is
      }
    } else if (m_postOf[p] >= 0) {
      elements[m_post[m_postOf[p]].core] += m_graph.pixels[p] * m_graph.channelElements[p];
    }
  }
  return std::max_element(elements.begin(), elements.end()) - elements.begin();
}

}  // namespace pim::crossbar::ll
