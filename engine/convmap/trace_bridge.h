// SPDX-License-Identifier: Apache-2.0
// A mapping as the trace simulator walks it (sim/row_trace), and the model's row activations against the
// trace's: the check that judges the model (docs/convmap.md).
#pragma once
#include <array>
#include <cstdint>

#include "engine/convmap/evaluator.h"
#include "sim/row_trace.h"

namespace pim::convmap {

/// The trace spec of a valid mapping: the temporal loops above level 0, each tensor's DRAM child and tile,
/// layouts and the input's block, each tensor alone in its bank (the model's assumption), the DRAM's rows.
sim::ConvTraceSpec traceSpec(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m,
                             int slices = 1);

struct TraceCheck {
  std::array<std::int64_t, kTensors> model{}, trace{};
  sim::ConvTraceResult result;
  std::int64_t modelTotal() const { return model[0] + model[1] + model[2]; }
  std::int64_t traceTotal() const { return trace[0] + trace[1] + trace[2]; }
  /// (model - trace) / trace of the totals, in percent (0 when both are 0).
  double errorPercent() const;
};

/// The steps the trace of a mapping takes at most (sim::traceWalkSteps: tile iterations walked one by one,
/// the periodic ones skipped, and the output tiles a skip marks); what bounds its time.
double traceSteps(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, int slices = 1);

/// The most steps the trace takes (10^9, docs/knobs.md); InputError naming the count past it.
inline constexpr std::int64_t kMaxTraceSteps = 1'000'000'000;

TraceCheck checkAgainstTrace(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m,
                             int slices = 1);

}  // namespace pim::convmap
