// SPDX-License-Identifier: Apache-2.0
// A proven lower bound on every valid mapping's latency and energy under the model (docs/convmap.md "Lower
// bound"), so that a mapper that does not prove optimality still reports how far its answer can be from
// the optimum. It counts only what no mapping avoids: every MAC on the most PEs and lanes the layer's
// divisors can fill, every touched element of each tensor moved through DRAM once and into one buffer once,
// each touched DRAM row opened once, and every MAC's operands read from a buffer with the most sharing the
// array allows.
#pragma once
#include <cstdint>
#include <string>

#include "engine/convmap/evaluator.h"

namespace pim::convmap {

struct CostBound {
  std::int64_t latencyCycles = 0;
  double energyPj = 0;
  std::string latencyBy;  // "compute" or "<DRAM> (<tensor>)": the term that sets the latency bound
};

CostBound lowerBound(const ConvLayer& layer, const Hierarchy& h);
/// The objective's bound from the cost bound (each objective is non-decreasing in latency and energy).
double objectiveBound(const ObjectiveSpec& o, const CostBound& b);

}  // namespace pim::convmap
