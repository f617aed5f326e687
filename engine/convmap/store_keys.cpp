// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/store_keys.h"

#include <cstdio>

#include "engine/common/sha256.h"

namespace pim::convmap {

namespace {

/// Shortest text that reads back as the same double.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string hierarchyHash(const Hierarchy& h) {
  std::string s = "convmap-model-1;bytes=" + std::to_string(h.elementBytes);
  const auto& pe = h.pe;
  s += ";pe=" + std::to_string(pe.height) + "x" + std::to_string(pe.width) + "x" +
       std::to_string(pe.internal) + "," + pe.unit + "," + exact(pe.macEnergyPj) + "," +
       exact(pe.frequencyGhz);
  const auto& t = h.timing;
  for (auto v : {t.tRCD, t.tRP, t.RL, t.WL, t.BL, t.tCCDL, t.columnBits}) s += "," + std::to_string(v);
  for (const auto& l : h.levels) {
    s += ";level=" + l.name;
    for (auto v : {l.entries, l.blockBytes, l.instances, l.latency, l.readBandwidth, l.writeBandwidth,
                   l.banks, l.rowBytes})
      s += "," + std::to_string(v);
    s += "," + exact(l.accessEnergyPj) + "," + std::to_string(l.bypassFixed);
    for (bool b : l.stores) s += b ? "1" : "0";
  }
  return sha256Hex(s);
}

std::string layerKey(const ConvLayer& layer) {
  std::string s;
  for (int d = 0; d < kDims; ++d)
    s += (d ? "," : "") + std::string(kDimNames[d]) + "=" + std::to_string(layer.bound[d]);
  s += ",stride=" + std::to_string(layer.strideW) + "x" + std::to_string(layer.strideH) +
       ",dilation=" + std::to_string(layer.dilW) + "x" + std::to_string(layer.dilH) +
       ",bytes=" + std::to_string(layer.elementBytes[Input]) + "/" +
       std::to_string(layer.elementBytes[Weight]) + "/" + std::to_string(layer.elementBytes[Output]);
  return s;
}

std::string objectiveKey(const ObjectiveSpec& o) {
  if (o.kind != Objective::Blended) return std::string(objectiveName(o.kind));
  char buf[48];
  std::snprintf(buf, sizeof buf, "blended(alpha=%.6g)", o.alpha);
  return buf;
}

}  // namespace pim::convmap
