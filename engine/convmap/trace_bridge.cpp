// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/trace_bridge.h"

#include <algorithm>

#include "engine/common/number_text.h"

namespace pim::convmap {

sim::ConvTraceSpec traceSpec(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, int slices) {
  sim::ConvTraceSpec s;
  for (int d = 0; d < kDims; ++d) s.bounds[d] = layer.bound[d];
  s.strideW = layer.strideW;
  s.strideH = layer.strideH;
  s.dilW = layer.dilW;
  s.dilH = layer.dilH;
  for (int t = 0; t < kTensors; ++t) s.elementBytes[t] = layer.elementBytes[t];
  for (const auto& l : temporalLoops(m, 1)) s.loops.push_back({l.dim, l.bound, l.level});
  for (int t = 0; t < kTensors; ++t) {
    const int child = dramChild(m, t);
    s.childLevel[t] = child;
    const auto e = tileExtents(m, child);
    for (int d = 0; d < kDims; ++d) s.tileExtent[t][d] = e[d];
    s.layout[t] =
        m.layout[t] == Layout::RowAligned ? sim::TraceLayout::RowAligned : sim::TraceLayout::Sequential;
  }
  if (m.layout[Input] == Layout::RowAligned) {
    s.blockH = m.blockH;
    s.blockW = m.blockW;
  }
  s.bank = {0, 1, 2};
  s.numBanks = static_cast<int>(std::max<std::int64_t>(kTensors, h.dram().banks));
  s.rowBytes = h.dram().rowBytes;
  s.slices = slices;
  return s;
}

double TraceCheck::errorPercent() const {
  const auto t = traceTotal(), mo = modelTotal();
  if (t == 0) return mo == 0 ? 0.0 : 100.0;
  return 100.0 * static_cast<double>(mo - t) / static_cast<double>(t);
}

double traceSteps(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, int slices) {
  return sim::traceWalkSteps(traceSpec(layer, h, m, slices));
}

TraceCheck checkAgainstTrace(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, int slices) {
  const sim::ConvTraceSpec spec = traceSpec(layer, h, m, slices);
  const double steps = sim::traceWalkSteps(spec);
  if (steps > static_cast<double>(kMaxTraceSteps))
    throw InputError("layer " + layer.name + ": the trace would take up to " +
                     withThousands(static_cast<std::int64_t>(steps)) + " steps for its " +
                     withThousands(static_cast<std::int64_t>(traceIterations(m))) +
                     " tile iterations, the periodic ones skipped (at most " + withThousands(kMaxTraceSteps) +
                     "); larger tiles below DRAM shorten it");
  TraceCheck c;
  const auto acts = rowActivations(layer, h, m);
  c.result = sim::traceConv(spec);
  for (int t = 0; t < kTensors; ++t) {
    c.model[t] = acts.count[t];
    c.trace[t] = c.result.tensors[t].activations;
  }
  return c;
}

}  // namespace pim::convmap
