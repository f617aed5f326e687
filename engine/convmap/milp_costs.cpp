// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/milp_costs.h"

#include <string>

#include "engine/common/int_math.h"

namespace pim::convmap {

namespace {

/// latency >= sum of (expression / divisor) over the parts, plus a constant: with latency integer, its
/// least value is the ceiling of the right side, as the evaluator takes it.
void addAtLeast(milp::MilpModel& m, std::size_t latency, const std::string& name,
                const std::vector<std::pair<const LinearExpr*, double>>& parts, double constant = 0) {
  LinearExpr row{{latency, 1}};
  for (const auto& [e, divisor] : parts) append(row, *e, -1 / divisor);
  if (row.size() > 1 || constant > 0) m.addRow(name, row, constant, milp::kInf);
}

}  // namespace

LinearExpr energyPj(const MilpTraffic& traffic, const Hierarchy& h) {
  LinearExpr e;
  for (std::size_t lv = 0; lv < traffic.levels.size(); ++lv) {
    const double perByte = h.levels[lv].energyPj(1.0);
    for (const auto& t : traffic.levels[lv])
      for (const auto* part : {&t.fillRead, &t.fillWritten, &t.operandRead, &t.operandWritten})
        append(e, *part, perByte);
  }
  return e;
}

std::size_t addLatency(milp::MilpModel& m, const MilpTraffic& traffic, const ConvLayer& layer,
                       const Hierarchy& h) {
  const auto latency = m.addVariable("latency", 0, milp::kInf, true);
  addAtLeast(m, latency, "latency >= compute", {{&traffic.computeCycles, 1}});
  const int dram = h.dramLevel();
  const double array = double(h.pe.height * h.pe.width);
  for (int lv = 0; lv < dram; ++lv) {
    const auto& decl = h.levels[lv];
    const double rd = double(decl.readBandwidth), wr = double(decl.writeBandwidth);
    for (int t = 0; t < kTensors; ++t) {
      const auto& x = traffic.levels[lv][t];
      const auto name = "latency >= " + decl.name + " " + std::string(kTensorNames[t]);
      if (lv == 0) {  // per PE: its own operands exactly, the fills over the whole array (a lower bound)
        static const LinearExpr none;
        const auto& operands = traffic.peOperandBytes[t];
        addAtLeast(m, latency, name + " reads", {{&operands, rd}, {&x.fillRead, rd * array}});
        addAtLeast(m, latency, name + " writes",
                   {{t == Output ? &operands : &none, wr}, {&x.fillWritten, wr * array}});
      } else {
        addAtLeast(m, latency, name + " reads", {{&x.operandRead, rd}, {&x.fillRead, rd}});
        addAtLeast(m, latency, name + " writes", {{&x.operandWritten, wr}, {&x.fillWritten, wr}});
      }
    }
  }
  // DRAM, per tensor in its own bank: ceil(read / bandwidth) + ceil(written / bandwidth) + activations.
  const auto& d = h.dram();
  for (int t = 0; t < kTensors; ++t) {
    const auto& x = traffic.levels[dram][t];
    const auto name = std::string(kTensorNames[t]) + " at " + d.name;
    const auto reads = m.addVariable(name + " read cycles", 0, milp::kInf, true);
    const auto writes = m.addVariable(name + " write cycles", 0, milp::kInf, true);
    addAtLeast(m, reads, name + " reads", {{&x.fillRead, double(d.readBandwidth)}});
    addAtLeast(m, writes, name + " writes", {{&x.fillWritten, double(d.writeBandwidth)}});
    const auto rows = ceilDiv(layer.touchedElements(t) * layer.elementBytes[t], d.rowBytes);
    m.addRow("latency >= " + name, {{latency, 1}, {reads, -1}, {writes, -1}},
             double(rows * h.timing.activationCycles()), milp::kInf);
  }
  return latency;
}

}  // namespace pim::convmap
