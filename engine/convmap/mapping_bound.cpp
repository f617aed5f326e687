// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/mapping_bound.h"

#include <algorithm>
#include <limits>

namespace pim::convmap {

MappingBound::MappingBound(const ConvLayer& layer, const Hierarchy& h)
    : m_layer(layer), m_h(h), m_scratch(h.levels.size()) {
  for (int t = 0; t < kTensors; ++t) m_leastRows += convmap::leastRowActivations(layer, h, t);
}

CostPair MappingBound::tensorCost(const ConvMapping& m, int t, Fills mode) {
  std::fill(m_scratch.begin(), m_scratch.end(), LevelCost{});
  addTensorTraffic(m_layer, m_h, m, t, mode, m_scratch);
  const auto pes = spatialProduct(m, SlotH) * spatialProduct(m, SlotW);
  const int dram = m_h.dramLevel();
  CostPair c;
  for (int lv = 0; lv <= dram; ++lv) {
    const auto& decl = m_h.levels[lv];
    const auto& l = m_scratch[lv];
    c.latencyCycles = std::max(c.latencyCycles, lv < dram ? tensorBufferCycles(decl, l, t, lv == 0 ? pes : 1)
                                                          : dramTransferCycles(decl, l, t));
    c.energyPj += decl.energyPj(
        static_cast<double>(l.bytesRead[t] + l.bytesWritten[t] + l.operandRead[t] + l.operandWritten[t]));
  }
  const auto dramCycles = dramTransferCycles(m_h.dram(), m_scratch[dram], t) +
                          convmap::leastRowActivations(m_layer, m_h, t) * m_h.timing.activationCycles();
  c.latencyCycles = std::max(c.latencyCycles, dramCycles);
  return c;
}

bool MappingBound::fitsBeside(const ConvMapping& m, int lv, int t) const {
  const auto& l = m_h.levels[lv];
  const auto e = tileExtents(m, lv, lv == 0);
  std::int64_t bytes = 0;
  for (int u = 0; u < kTensors; ++u)
    if (u == t || (l.bypassFixed && l.stores[u]))
      bytes += tileElements(m_layer, e, u) * m_layer.elementBytes[u];
  return bytes <= l.capacityBytes(m_h.elementBytes);
}

bool MappingBound::mayFit(const ConvMapping& m) const {
  const int dram = m_h.dramLevel();
  for (int lv = 0; lv < dram; ++lv)
    if (!fitsBeside(m, lv, -1)) return false;
  for (int t = 0; t < kTensors; ++t) {
    bool somewhere = false;
    for (int lv = 0; lv < dram && !somewhere; ++lv)
      somewhere = m_h.levels[lv].stores[t] && fitsBeside(m, lv, t);
    if (!somewhere) return false;
  }
  return true;
}

CostPair MappingBound::ofKept(const ConvMapping& m, Fills mode) {
  const auto pes = spatialProduct(m, SlotH) * spatialProduct(m, SlotW);
  CostPair b{m_layer.macs() / (pes * spatialProduct(m, SlotInternal)),
             static_cast<double>(m_layer.macs()) * m_h.pe.macEnergyPj};
  for (int t = 0; t < kTensors; ++t) {
    const auto c = tensorCost(m, t, mode);
    b.latencyCycles = std::max(b.latencyCycles, c.latencyCycles);
    b.energyPj += c.energyPj;
  }
  return b;
}

CostPair MappingBound::ofFactors(const ConvMapping& m) {
  const auto pes = spatialProduct(m, SlotH) * spatialProduct(m, SlotW);
  CostPair b{m_layer.macs() / (pes * spatialProduct(m, SlotInternal)),
             static_cast<double>(m_layer.macs()) * m_h.pe.macEnergyPj};
  const int dram = m_h.dramLevel();
  m_keeps = m;
  for (int t = 0; t < kTensors; ++t) {
    // The levels below DRAM that may keep t, and those that must (stores and no bypass choice).
    unsigned may = 0, must = 0;
    for (int lv = 0; lv < dram; ++lv) {
      const auto& l = m_h.levels[lv];
      if (l.stores[t] && fitsBeside(m, lv, t)) may |= 1u << lv;
      if (l.stores[t] && l.bypassFixed) must |= 1u << lv;
    }
    if ((may & must) != must || may == 0)
      return {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<double>::infinity()};
    CostPair least{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<double>::infinity()};
    for (unsigned keep = may;; keep = (keep - 1) & may) {  // every subset of `may` holding `must`, but none
      if (keep != 0 && (keep & must) == must) {
        for (int lv = 0; lv < dram; ++lv) m_keeps.levels[lv].keep[t] = keep >> lv & 1;
        const auto c = tensorCost(m_keeps, t, Fills::Distinct);
        least.latencyCycles = std::min(least.latencyCycles, c.latencyCycles);
        least.energyPj = std::min(least.energyPj, c.energyPj);
      }
      if (keep == 0) break;
    }
    for (int lv = 0; lv < dram; ++lv) m_keeps.levels[lv].keep[t] = m.levels[lv].keep[t];
    b.latencyCycles = std::max(b.latencyCycles, least.latencyCycles);
    b.energyPj += least.energyPj;
  }
  return b;
}

}  // namespace pim::convmap
