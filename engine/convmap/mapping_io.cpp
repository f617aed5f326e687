// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/mapping_io.h"

#include <algorithm>
#include <charconv>

namespace pim::convmap {

using Json = nlohmann::json;

namespace {

int dimIndex(std::string_view name) {
  for (int d = 0; d < kDims; ++d)
    if (kDimNames[d] == name) return d;
  return -1;
}

std::int64_t integerAt(const Json& j, const std::string& key, const std::string& where,
                       std::int64_t fallback) {
  if (!j.contains(key)) {
    if (fallback >= 0) return fallback;
    throw InputError(where + "." + key + ": missing");
  }
  const auto& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    throw InputError(where + "." + key + ": " + v.dump() + " is not a whole number >= 0");
  return v.get<std::int64_t>();
}

}  // namespace

Json layerJson(const ConvLayer& layer) {
  Json j{{"name", layer.name}};
  for (int d = 0; d < kDims; ++d) j[std::string(kDimNames[d])] = layer.bound[d];
  j["stride_w"] = layer.strideW;
  j["stride_h"] = layer.strideH;
  j["dilation_w"] = layer.dilW;
  j["dilation_h"] = layer.dilH;
  j["bytes"] = layer.elementBytes;
  return j;
}

ConvLayer parseLayerJson(const Json& j, std::string_view origin) {
  const std::string at = std::string(origin) + ": layer";
  if (!j.is_object()) throw InputError(at + ": must be an object");
  ConvLayer l;
  if (j.contains("name") && j["name"].is_string()) l.name = j["name"].get<std::string>();
  for (int d = 0; d < kDims; ++d) l.bound[d] = integerAt(j, std::string(kDimNames[d]), at, 1);
  l.strideW = integerAt(j, "stride_w", at, 1);
  l.strideH = integerAt(j, "stride_h", at, 1);
  l.dilW = integerAt(j, "dilation_w", at, 1);
  l.dilH = integerAt(j, "dilation_h", at, 1);
  if (j.contains("bytes")) {
    const auto& b = j["bytes"];
    if (!b.is_array() || b.size() != kTensors)
      throw InputError(at + ".bytes: must be [input, weight, output]");
    for (int t = 0; t < kTensors; ++t) {
      if (!b[t].is_number_integer()) throw InputError(at + ".bytes: must be three whole numbers");
      l.elementBytes[t] = b[t].get<std::int64_t>();
    }
  }
  validate(l, at);
  return l;
}

Json mappingJson(const Hierarchy& h, const ConvMapping& m) {
  Json levels = Json::array();
  for (std::size_t lv = 0; lv < m.levels.size(); ++lv) {
    const auto& l = m.levels[lv];
    Json factors = Json::object();
    for (int s = 0; s < kSlots; ++s)
      for (int d = 0; d < kDims; ++d)
        if (l.factor[s][d] > 1)
          factors[std::string(kSlotNames[s])][std::string(kDimNames[d])] = l.factor[s][d];
    Json order = Json::array(), keep = Json::array();
    for (int d : l.order) order.push_back(kDimNames[d]);
    for (int t = 0; t < kTensors; ++t)
      if (l.keep[t]) keep.push_back(kTensorNames[t]);
    levels.push_back({{"name", h.levels[lv].name}, {"factors", factors}, {"order", order}, {"keep", keep}});
  }
  Json layout = Json::object();
  for (int t = 0; t < kTensors; ++t) layout[std::string(kTensorNames[t])] = layoutName(m.layout[t]);
  Json j{{"hierarchy", h.name}, {"levels", levels}, {"layout", layout}};
  if (m.layout[Input] == Layout::RowAligned) j["block"] = {m.blockH, m.blockW};
  return j;
}

namespace {

void readFactors(const Json& f, const std::string& at, LevelMapping& l) {
  if (!f.is_object()) throw InputError(at + ": must be an object of slots");
  for (const auto& [slot, dims] : f.items()) {
    const auto s = std::find(kSlotNames.begin(), kSlotNames.end(), slot) - kSlotNames.begin();
    if (s == kSlots) throw InputError(at + "." + slot + ": unknown slot (H, W, Internal, Temporal)");
    if (!dims.is_object()) throw InputError(at + "." + slot + ": must be an object of dimensions");
    for (const auto& [dim, v] : dims.items()) {
      const int d = dimIndex(dim);
      if (d < 0) throw InputError(at + "." + slot + "." + dim + ": unknown dimension (R, S, P, Q, C, K, N)");
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > kMaxConvExtent)
        throw InputError(at + "." + slot + "." + dim + ": " + v.dump() + " is not a factor (1.." +
                         std::to_string(kMaxConvExtent) + ")");
      l.factor[s][d] = v.get<std::int64_t>();
    }
  }
}

std::vector<std::string> stringList(const Json& j, const std::string& at) {
  if (!j.is_array()) throw InputError(at + ": must be an array of names");
  std::vector<std::string> out;
  for (const auto& x : j) {
    if (!x.is_string()) throw InputError(at + ": must be an array of names");
    out.push_back(x.get<std::string>());
  }
  return out;
}

}  // namespace

ConvMapping parseMappingJson(const Json& j, const Hierarchy& h, std::string_view origin) {
  const std::string at = std::string(origin) + ": mapping";
  if (!j.is_object() || !j.contains("levels") || !j["levels"].is_array())
    throw InputError(at + ": needs \"levels\", an array with one entry per level of " + h.name);
  if (j["levels"].size() != h.levels.size())
    throw InputError(at + ".levels: " + std::to_string(j["levels"].size()) + " levels, " + h.name + " has " +
                     std::to_string(h.levels.size()));
  ConvMapping m;
  m.levels.resize(h.levels.size());
  for (std::size_t lv = 0; lv < h.levels.size(); ++lv) {
    const auto& x = j["levels"][lv];
    const std::string lat = at + ".levels[" + std::to_string(lv) + "]";
    if (!x.is_object()) throw InputError(lat + ": must be an object");
    auto& l = m.levels[lv];
    for (auto& f : l.factor) f.fill(1);
    if (x.contains("factors")) readFactors(x["factors"], lat + ".factors", l);
    if (x.contains("order"))
      for (const auto& name : stringList(x["order"], lat + ".order")) {
        const int d = dimIndex(name);
        if (d < 0) throw InputError(lat + ".order: unknown dimension '" + name + "'");
        l.order.push_back(d);
      }
    l.keep.fill(false);
    for (const auto& name : stringList(x.value("keep", Json::array()), lat + ".keep")) {
      const auto t = std::find(kTensorNames.begin(), kTensorNames.end(), name) - kTensorNames.begin();
      if (t == kTensors)
        throw InputError(lat + ".keep: unknown tensor '" + name + "' (input, weight, output)");
      l.keep[t] = true;
    }
  }
  if (j.contains("layout")) {
    const auto& lay = j["layout"];
    if (!lay.is_object()) throw InputError(at + ".layout: must be an object");
    for (int t = 0; t < kTensors; ++t) {
      const std::string name(kTensorNames[t]);
      if (lay.contains(name) && !lay[name].is_string())  // fuzz_convmap found the type_error it raised
        throw InputError(at + ".layout." + name + ": " + lay[name].dump() + " (sequential or row-aligned)");
      const auto v = lay.value(name, std::string("sequential"));
      if (v != "sequential" && v != "row-aligned")
        throw InputError(at + ".layout." + name + ": '" + v + "' (sequential or row-aligned)");
      m.layout[t] = v == "sequential" ? Layout::Sequential : Layout::RowAligned;
    }
  }
  if (j.contains("block")) {
    const auto& b = j["block"];
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer())
      throw InputError(at + ".block: must be [height, width]");
    m.blockH = b[0].get<std::int64_t>();
    m.blockW = b[1].get<std::int64_t>();
  }
  return m;
}

Json costJson(const Hierarchy& h, const ConvCost& c) {
  Json levels = Json::array();
  for (std::size_t lv = 0; lv < c.levels.size(); ++lv) {
    const auto& l = c.levels[lv];
    levels.push_back({{"name", h.levels[lv].name},
                      {"cycles", l.cycles},
                      {"energy_pj", l.energyPj},
                      {"fills", l.fills},
                      {"tile_bytes", l.tileBytes},
                      {"bytes_read", l.bytesRead},
                      {"bytes_written", l.bytesWritten}});
  }
  return {{"latency_cycles", c.latencyCycles},
          {"compute_cycles", c.computeCycles},
          {"bound_by", c.boundBy},
          {"energy_pj", c.energyPj},
          {"mac_energy_pj", c.macEnergyPj},
          {"macs", c.macs},
          {"row_activations",
           {{"input", c.rowActs.count[Input]},
            {"weight", c.rowActs.count[Weight]},
            {"output", c.rowActs.count[Output]},
            {"total", c.rowActs.total()}}},
          {"row_regime", c.rowActs.regime},
          {"dram_cycles", c.dramCycles},
          {"levels", levels}};
}

ConvLayer parseLayerDims(std::string_view text, std::string_view name) {
  ConvLayer l;
  l.name = std::string(name);
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto end = std::min(text.find(',', pos), text.size());
    const auto item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key(item.substr(0, eq));
    std::int64_t v = 0;
    const auto val = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    const auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (eq == std::string_view::npos || ec != std::errc() || p != val.data() + val.size())
      throw InputError("--dims: '" + std::string(item) + "' is not name=whole number");
    if (const int d = dimIndex(key); d >= 0)
      l.bound[d] = v;
    else if (key == "stride")
      l.strideW = l.strideH = v;
    else if (key == "stride_w")
      l.strideW = v;
    else if (key == "stride_h")
      l.strideH = v;
    else if (key == "dilation")
      l.dilW = l.dilH = v;
    else if (key == "dilation_w")
      l.dilW = v;
    else if (key == "dilation_h")
      l.dilH = v;
    else if (key == "bytes")
      l.elementBytes = {v, v, v};
    else
      throw InputError("--dims: unknown name '" + key +
                       "' (R, S, P, Q, C, K, N, stride, stride_w, stride_h, "
                       "dilation, dilation_w, dilation_h, bytes)");
  }
  validate(l, "--dims");
  return l;
}

}  // namespace pim::convmap
