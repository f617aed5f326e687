// SPDX-License-Identifier: Apache-2.0
#include "engine/target/upmem/upmem_params.h"

#include <cmath>

#include "engine/hw/backend.h"

namespace pim {
namespace {

using K = ParamDecl::Kind;

// Key, kind, physical lower bound. One list: the schema declares these and upmemParams reads these.
const std::vector<ParamDecl>& decls() {
  static const std::vector<ParamDecl> d = {
      {"pim.minTaskletCPI", K::Integer, 1},   {"pim.MRAM_bytes", K::Integer, 8},
      {"pim.dmaMaxBytes", K::Integer, 8},     {"pim.hostToRankGBps", K::Real, 0},
      {"pim.rankToHostGBps", K::Real, 0},     {"pim.broadcastRankGBps", K::Real, 0},
      {"pim.hostToAllGBps", K::Real, 0},      {"pim.allToHostGBps", K::Real, 0},
      {"pim.broadcastAllGBps", K::Real, 0},   {"pim.toDpuSetupMs", K::Real, 0},
      {"pim.fromDpuSetupMs", K::Real, 0},     {"pim.serialToDpuGBps", K::Real, 0},
      {"pim.serialFromDpuGBps", K::Real, 0},  {"pim.launchMs", K::Real, 0},
      {"pim.launchPerRankMs", K::Real, 0},    {"pim.barrierCoeff", K::Real, 0},
      {"pim.barrierExp", K::Real, 0},         {"pim.dmaServiceBase", K::Real, 0},
      {"pim.dmaServicePerByte", K::Real, 0},  {"pim.mulOperandBits", K::Real, 1},
      {"pim.tasklets", K::Integer, 1},        {"pim.blockBytes", K::Integer, 8},
      {"pim.stackBytes", K::Integer, 0},      {"pim.hostMergeGops", K::Real, 0},
      {"pim.hwMulCycles", K::Real, 0, false},  // a what-if; files written before it have none (0)
  };
  return d;
}

double value(const Backend& b, const char* key) { return b.param(key)->value; }  // the schema requires it

}  // namespace

std::vector<ParamDecl> upmemParamDecls() { return decls(); }

UpmemParams upmemParams(const Backend& b) {
  UpmemParams p;
  p.dpu.clockMHz = b.core.clockMHz;
  p.dpu.maxTasklets = b.core.threads;
  p.dpu.sameTaskletGap = static_cast<int>(value(b, "pim.minTaskletCPI"));
  p.dpu.barrierCoeff = value(b, "pim.barrierCoeff");
  p.dpu.barrierExp = value(b, "pim.barrierExp");
  p.dpu.dma.serviceBase = value(b, "pim.dmaServiceBase");
  p.dpu.dma.servicePerByte = value(b, "pim.dmaServicePerByte");

  auto& r = p.rates;
  r.toRankGBps = value(b, "pim.hostToRankGBps");
  r.fromRankGBps = value(b, "pim.rankToHostGBps");
  r.broadcastRankGBps = value(b, "pim.broadcastRankGBps");
  r.toAllGBps = value(b, "pim.hostToAllGBps");
  r.fromAllGBps = value(b, "pim.allToHostGBps");
  r.broadcastAllGBps = value(b, "pim.broadcastAllGBps");
  r.toDpuSetupMs = value(b, "pim.toDpuSetupMs");
  r.fromDpuSetupMs = value(b, "pim.fromDpuSetupMs");
  r.serialToDpuGBps = value(b, "pim.serialToDpuGBps");
  r.serialFromDpuGBps = value(b, "pim.serialFromDpuGBps");
  r.launchMs = value(b, "pim.launchMs");
  r.launchPerRankMs = value(b, "pim.launchPerRankMs");

  auto& c = p.codegen;
  c.tasklets = static_cast<int>(value(b, "pim.tasklets"));
  c.blockBytes = static_cast<int>(value(b, "pim.blockBytes"));
  c.mulOperandBits = static_cast<int>(std::lround(value(b, "pim.mulOperandBits")));
  // A hardware multiplier's cycles of one tasklet as issue slots (each slot is one same-tasklet gap).
  const Parameter* hw = b.param("pim.hwMulCycles");
  const double hwMul = hw ? hw->value : 0;
  c.hwMulInstructions = hwMul > 0 ? static_cast<int>(std::ceil(hwMul / p.dpu.sameTaskletGap)) : 0;
  c.stackBytes = static_cast<std::int64_t>(value(b, "pim.stackBytes"));
  c.hostMergeGops = value(b, "pim.hostMergeGops");
  c.maxTasklets = b.core.threads;
  c.wramBytes = b.core.dataMemoryBytes;
  c.mramBytes = static_cast<std::int64_t>(value(b, "pim.MRAM_bytes"));
  c.dmaMaxBytes = static_cast<int>(value(b, "pim.dmaMaxBytes"));
  c.dpusPerRank = b.coresPerGroup();
  return p;
}

}  // namespace pim
