// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/hierarchy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <variant>

#include "engine/common/data_dir.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_input.h"
#include "engine/common/number_text.h"

namespace pim::convmap {

using Json = nlohmann::json;

const std::vector<HierarchyField>& hierarchyFields() {
  static const std::vector<HierarchyField> fields = {
      {"element_bytes", "B", 1, 8, true,
       "bytes of the element a level's entries count (pimopt-code data_pr)"},
      {"pe_array.height", "PEs", 1, 4096, true, "PE rows: the H spatial slot's limit (pimopt eq. 18)"},
      {"pe_array.width", "PEs", 1, 4096, true, "PE columns: the W spatial slot's limit (eq. 19)"},
      {"pe_array.internal", "MACs", 1, 4096, true,
       "MACs per PE per cycle: the Internal slot's limit (eq. 20)"},
      {"pe_array.mac_energy_pj", "pJ", 0, 1e6, false, "energy of one MAC"},
      {"pe_array.frequency_ghz", "GHz", 0.001, 100, false, "clock of PEs and buffers (cycles to seconds)"},
      {"dram_timing.tRCD", "cycles", 1, 1000, true, "row to column delay; activation = tRCD + tRP"},
      {"dram_timing.tRP", "cycles", 1, 1000, true, "precharge; activation = tRCD + tRP"},
      {"dram_timing.RL", "cycles", 0, 1000, true, "read latency (reported; the model charges bandwidth)"},
      {"dram_timing.WL", "cycles", 0, 1000, true, "write latency (reported)"},
      {"dram_timing.BL", "beats", 1, 64, true, "burst length (reported)"},
      {"dram_timing.tCCDL", "cycles", 0, 1000, true, "column to column delay (reported)"},
      {"dram_timing.column_bits", "bits", 8, 4096, true, "column width (reported)"},
      {"levels[].entries", "elements", 1, 1e15, true, "capacity in elements (pimopt 3.2.1)"},
      {"levels[].block_bytes", "B", 1, 1 << 20, true, "bytes one access moves; energy is per access"},
      {"levels[].instances", "count", 1, 1 << 20, true, "copies of the level (PE buffers: one per PE)"},
      {"levels[].latency", "cycles", 1, 1e6, true, "cycles per access (bandwidth default block/latency)"},
      {"levels[].access_energy_pj", "pJ", 0, 1e9, false, "energy per block access"},
      {"levels[].read_bandwidth", "B/cycle", 1, 1 << 20, true, "read bandwidth (default block/latency)"},
      {"levels[].write_bandwidth", "B/cycle", 1, 1 << 20, true, "write bandwidth (default block/latency)"},
      {"levels[].banks", "count", 1, 1024, true, "DRAM banks (row buffer and DRAM levels)"},
      {"levels[].row_bytes", "B", 8, 1 << 20, true, "DRAM row (row buffer and DRAM levels)"},
  };
  return fields;
}

namespace {

const HierarchyField& field(std::string_view path) {
  for (const auto& f : hierarchyFields())
    if (f.path == path) return f;
  throw std::logic_error("undeclared hierarchy field " + std::string(path));
}

struct Reader {
  std::string origin;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(origin + ": " + where + ": " + what);
  }
  const Json& object(const Json& j, const std::string& key, const std::string& where) const {
    if (!j.contains(key)) fail(where.empty() ? key : where + "." + key, "missing");
    if (!j[key].is_object()) fail(where.empty() ? key : where + "." + key, "must be an object");
    return j[key];
  }
  /// A declared number at `where` (the JSON path printed), validated against its declaration `decl`.
  double number(const Json& j, const std::string& key, const std::string& where, std::string_view decl,
                const double* fallback = nullptr) const {
    const auto& f = field(decl);
    if (!j.contains(key)) {
      if (fallback) return *fallback;
      fail(where, "missing (" + std::string(f.description) + ", " + std::string(f.unit) + ")");
    }
    const auto& v = j[key];
    if (!v.is_number()) fail(where, "must be a number (" + std::string(f.unit) + ")");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < f.min || x > f.max)
      fail(where, v.dump() + " is out of range [" + compactNumber(f.min) + ", " + compactNumber(f.max) +
                      "] " + std::string(f.unit));
    if (f.integer && x != std::floor(x))
      fail(where, v.dump() + " must be a whole number of " + std::string(f.unit));
    return x;
  }
  std::int64_t integer(const Json& j, const std::string& key, const std::string& where, std::string_view decl,
                       std::int64_t fallback = -1) const {
    const double fb = static_cast<double>(fallback);
    return static_cast<std::int64_t>(number(j, key, where, decl, fallback >= 0 ? &fb : nullptr));
  }
  std::string text(const Json& j, const std::string& key, const std::string& where, bool required) const {
    if (!j.contains(key)) {
      if (required) fail(where, "missing");
      return {};
    }
    if (!j[key].is_string()) fail(where, "must be a string");
    return j[key].get<std::string>();
  }
};

MemoryLevel readLevel(const Reader& r, const Json& j, const std::string& at) {
  if (!j.is_object()) r.fail(at, "must be an object");
  MemoryLevel l;
  l.name = r.text(j, "name", at + ".name", true);
  l.entries = r.integer(j, "entries", at + ".entries", "levels[].entries");
  l.blockBytes = r.integer(j, "block_bytes", at + ".block_bytes", "levels[].block_bytes");
  l.instances = r.integer(j, "instances", at + ".instances", "levels[].instances", 1);
  l.latency = r.integer(j, "latency", at + ".latency", "levels[].latency");
  l.accessEnergyPj = r.number(j, "access_energy_pj", at + ".access_energy_pj", "levels[].access_energy_pj");
  const std::int64_t bw = std::max<std::int64_t>(1, l.blockBytes / l.latency);
  l.readBandwidth = r.integer(j, "read_bandwidth", at + ".read_bandwidth", "levels[].read_bandwidth", bw);
  l.writeBandwidth = r.integer(j, "write_bandwidth", at + ".write_bandwidth", "levels[].write_bandwidth", bw);
  l.banks = r.integer(j, "banks", at + ".banks", "levels[].banks", 1);
  l.rowBytes = r.integer(j, "row_bytes", at + ".row_bytes", "levels[].row_bytes", 0);
  if (j.contains("stores")) {
    const auto& s = j["stores"];
    if (!s.is_array() || s.size() != kTensors ||
        !std::all_of(s.begin(), s.end(), [](auto& b) { return b.is_boolean(); }))
      r.fail(at + ".stores", "must be three booleans [input, weight, output]");
    for (int t = 0; t < kTensors; ++t) l.stores[t] = s[t].get<bool>();
  }
  if (j.contains("bypass_fixed")) {
    if (!j["bypass_fixed"].is_boolean()) r.fail(at + ".bypass_fixed", "must be true or false");
    l.bypassFixed = j["bypass_fixed"].get<bool>();
  }
  return l;
}

void checkConsistent(const Reader& r, const Hierarchy& h) {
  if (h.levels.size() < 2)
    r.fail("levels", "needs at least a PE buffer and DRAM (got " + std::to_string(h.levels.size()) + ")");
  if (h.levels.size() > 8) r.fail("levels", std::to_string(h.levels.size()) + " levels (at most 8)");
  const auto& pe = h.levels.front();
  if (pe.instances < h.peCount())
    r.fail("levels[0].instances", std::to_string(pe.instances) + " PE buffers for a " +
                                      std::to_string(h.pe.height) + " x " + std::to_string(h.pe.width) +
                                      " array (one per PE needed)");
  const auto& dram = h.dram();
  const std::string d = "levels[" + std::to_string(h.dramLevel()) + "]";
  if (dram.rowBytes <= 0) r.fail(d + ".row_bytes", "missing: DRAM needs its row size");
  for (int t = 0; t < kTensors; ++t)
    if (!dram.stores[t])
      r.fail(d + ".stores", "DRAM must store every tensor (" + std::string(kTensorNames[t]) + " is off)");
}

}  // namespace

namespace {

using ValueRef = std::variant<std::int64_t*, double*>;

/// The member a field path names at `level` (-1 for the fields outside the levels); nullopt when none.
std::optional<ValueRef> valueRef(Hierarchy& h, std::string_view field, int level) {
  if (level >= 0) {
    auto& l = h.levels[static_cast<std::size_t>(level)];
    const std::pair<std::string_view, ValueRef> members[] = {{"entries", &l.entries},
                                                             {"block_bytes", &l.blockBytes},
                                                             {"instances", &l.instances},
                                                             {"latency", &l.latency},
                                                             {"access_energy_pj", &l.accessEnergyPj},
                                                             {"read_bandwidth", &l.readBandwidth},
                                                             {"write_bandwidth", &l.writeBandwidth},
                                                             {"banks", &l.banks},
                                                             {"row_bytes", &l.rowBytes}};
    for (const auto& [name, ref] : members)
      if (name == field) return ref;
    return std::nullopt;
  }
  auto& t = h.timing;
  const std::pair<std::string_view, ValueRef> members[] = {{"element_bytes", &h.elementBytes},
                                                           {"pe_array.height", &h.pe.height},
                                                           {"pe_array.width", &h.pe.width},
                                                           {"pe_array.internal", &h.pe.internal},
                                                           {"pe_array.mac_energy_pj", &h.pe.macEnergyPj},
                                                           {"pe_array.frequency_ghz", &h.pe.frequencyGhz},
                                                           {"dram_timing.tRCD", &t.tRCD},
                                                           {"dram_timing.tRP", &t.tRP},
                                                           {"dram_timing.RL", &t.RL},
                                                           {"dram_timing.WL", &t.WL},
                                                           {"dram_timing.BL", &t.BL},
                                                           {"dram_timing.tCCDL", &t.tCCDL},
                                                           {"dram_timing.column_bits", &t.columnBits}};
  for (const auto& [name, ref] : members)
    if (name == field) return ref;
  return std::nullopt;
}

/// "levels[2].row_bytes" -> (2, "row_bytes"); any other path -> (-1, path); (-2, "") when malformed.
std::pair<int, std::string> splitPath(std::string_view path) {
  if (!path.starts_with("levels[")) return {-1, std::string(path)};
  const auto close = path.find("].");
  if (close == std::string_view::npos || close == 7) return {-2, {}};
  int level = 0;
  for (char c : path.substr(7, close - 7)) {
    if (c < '0' || c > '9' || level > 100) return {-2, {}};
    level = level * 10 + (c - '0');
  }
  return {level, std::string(path.substr(close + 2))};
}

}  // namespace

std::vector<HierarchyValue> hierarchyValues(const Hierarchy& h) {
  Hierarchy& mut = const_cast<Hierarchy&>(h);  // read through the same table that writes; nothing is changed
  std::vector<HierarchyValue> out;
  auto add = [&](std::string path, int level, std::string_view decl, std::string_view member) {
    const auto ref = valueRef(mut, member, level);
    const double v = std::visit([](auto* p) { return static_cast<double>(*p); }, *ref);
    out.push_back({std::move(path), level, &field(decl), v});
  };
  for (const auto& f : hierarchyFields()) {
    if (f.path.starts_with("levels[]")) continue;
    add(std::string(f.path), -1, f.path, f.path);
  }
  for (int lv = 0; lv < static_cast<int>(h.levels.size()); ++lv) {
    const bool rows = h.levels[static_cast<std::size_t>(lv)].rowBytes > 0;
    for (const auto& f : hierarchyFields()) {
      if (!f.path.starts_with("levels[].")) continue;
      const auto member = f.path.substr(9);
      if (!rows && (member == "banks" || member == "row_bytes")) continue;
      add("levels[" + std::to_string(lv) + "]." + std::string(member), lv, f.path, member);
    }
  }
  return out;
}

void setHierarchyValue(Hierarchy& h, std::string_view path, double value, std::string_view origin,
                       std::string_view where) {
  const std::string at(where.empty() ? path : where);
  const auto [level, member] = splitPath(path);
  auto unknown = [&] {
    throw InputError(std::string(origin) + ": " + at + ": not a number of the hierarchy");
  };
  if (level < -1 || level >= static_cast<int>(h.levels.size())) unknown();
  const auto ref = valueRef(h, member, level);
  if (!ref) unknown();
  const HierarchyField& f = field(level >= 0 ? "levels[]." + member : member);
  if (!std::isfinite(value) || value < f.min || value > f.max)
    throw InputError(std::string(origin) + ": " + at + ": " + compactNumber(value) + " is out of range [" +
                     compactNumber(f.min) + ", " + compactNumber(f.max) + "] " + std::string(f.unit));
  if (f.integer && value != std::floor(value))
    throw InputError(std::string(origin) + ": " + at + ": " + compactNumber(value) +
                     " must be a whole number of " + std::string(f.unit));
  std::visit([&](auto* p) { *p = static_cast<std::remove_reference_t<decltype(*p)>>(value); }, *ref);
}

void checkHierarchy(const Hierarchy& h, std::string_view origin) {
  checkConsistent(Reader{std::string(origin)}, h);
}

Hierarchy parseHierarchyJson(std::string_view text, std::string_view origin) {
  Reader r{std::string(origin)};
  const Json j = parseJsonInput(text, origin);
  if (!j.is_object()) r.fail("(top level)", "must be an object");
  Hierarchy h;
  h.file = std::string(origin);
  h.name = r.text(j, "name", "name", true);
  h.description = r.text(j, "description", "description", false);
  h.elementBytes = r.integer(j, "element_bytes", "element_bytes", "element_bytes", 1);
  const auto& pe = r.object(j, "pe_array", "");
  h.pe.height = r.integer(pe, "height", "pe_array.height", "pe_array.height");
  h.pe.width = r.integer(pe, "width", "pe_array.width", "pe_array.width");
  h.pe.internal = r.integer(pe, "internal", "pe_array.internal", "pe_array.internal", 1);
  h.pe.unit = r.text(pe, "unit", "pe_array.unit", false);
  if (h.pe.unit.empty()) h.pe.unit = "scalar";
  h.pe.macEnergyPj = r.number(pe, "mac_energy_pj", "pe_array.mac_energy_pj", "pe_array.mac_energy_pj");
  const double ghz = 1.0;
  h.pe.frequencyGhz = r.number(pe, "frequency_ghz", "pe_array.frequency_ghz", "pe_array.frequency_ghz", &ghz);
  const auto& t = r.object(j, "dram_timing", "");
  auto timing = [&](const char* key, std::int64_t fallback) {
    return r.integer(t, key, std::string("dram_timing.") + key, std::string("dram_timing.") + key, fallback);
  };
  h.timing = {timing("tRCD", -1), timing("tRP", -1),  timing("RL", 25),          timing("WL", 25),
              timing("BL", 4),    timing("tCCDL", 2), timing("column_bits", 256)};
  if (!j.contains("levels") || !j["levels"].is_array()) r.fail("levels", "missing or not an array of levels");
  for (std::size_t i = 0; i < j["levels"].size(); ++i)
    h.levels.push_back(readLevel(r, j["levels"][i], "levels[" + std::to_string(i) + "]"));
  if (j.contains("assumed")) {
    if (!j["assumed"].is_array()) r.fail("assumed", "must be an array of strings");
    for (const auto& a : j["assumed"]) {
      if (!a.is_string()) r.fail("assumed", "must be an array of strings");
      h.assumed.push_back(a.get<std::string>());
    }
  }
  checkConsistent(r, h);
  return h;
}

Hierarchy loadHierarchyFile(const std::string& path) {
  return parseHierarchyJson(readInputFile(path, "hierarchy file"), path);
}

namespace {
std::string hierarchiesDir() { return dataDir() + "/hierarchies"; }
}  // namespace

std::vector<std::string> builtinHierarchyNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(hierarchiesDir(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Hierarchy builtinHierarchy(std::string_view name) {
  const auto names = builtinHierarchyNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw InputError("hierarchy '" + std::string(name) + "': not a shipped hierarchy (known: " + known +
                     "; or give a file path)");
  }
  return loadHierarchyFile(hierarchiesDir() + "/" + std::string(name) + ".json");
}

}  // namespace pim::convmap
