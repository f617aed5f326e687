// SPDX-License-Identifier: Apache-2.0
// A DRAM-PIM memory hierarchy for conv mapping (pimopt 3; docs/convmap.md "Hierarchy"): a PE array and memory
// levels innermost first, level 0 the PE buffers (one instance per PE), the last level DRAM. Every number is
// a declared parameter with a unit, a range and a source (kHierarchyFields), read from
// datasets/hierarchies/*.json.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/convmap/conv_layer.h"

namespace pim::convmap {

struct MemoryLevel {
  std::string name;
  std::int64_t entries = 0;     // capacity in elements of the hierarchy's element_bytes (pimopt 3.2.1)
  std::int64_t blockBytes = 1;  // one access moves a block; access energy is per block
  std::int64_t instances = 1;
  std::int64_t latency = 1;                             // cycles per access
  double accessEnergyPj = 0;                            // per block access
  std::array<bool, kTensors> stores{true, true, true};  // which tensors this level may keep
  bool bypassFixed = false;                             // keep exactly `stores` (no bypass choice)
  std::int64_t readBandwidth = 0;  // bytes per cycle (default blockBytes / latency, at least 1)
  std::int64_t writeBandwidth = 0;
  std::int64_t banks = 1;     // DRAM and row buffer only
  std::int64_t rowBytes = 0;  // DRAM and row buffer only

  std::int64_t capacityBytes(std::int64_t elementBytes) const { return entries * elementBytes; }
  /// Energy of moving `bytes` through this level, at its per-block access cost.
  double energyPj(double bytes) const { return bytes / static_cast<double>(blockBytes) * accessEnergyPj; }
};

struct PeArray {
  std::int64_t height = 1, width = 1, internal = 1;  // internal: MACs per PE per cycle (SIMD, tensor core)
  std::string unit = "scalar";
  double macEnergyPj = 0.56;
  double frequencyGhz = 1.0;
};

struct DramTiming {
  std::int64_t tRCD = 14, tRP = 14, RL = 25, WL = 25, BL = 4, tCCDL = 2, columnBits = 256;
  /// Row-activation latency (pimopt-code arch/pim_arch.py): tRCD + tRP cycles.
  std::int64_t activationCycles() const { return tRCD + tRP; }
};

struct Hierarchy {
  std::string name, description, file;
  std::int64_t elementBytes = 1;  // the element the level entries count (pimopt-code data_pr 8 bits)
  PeArray pe;
  DramTiming timing;
  std::vector<MemoryLevel> levels;   // innermost first; levels.back() is DRAM
  std::vector<std::string> assumed;  // fields taken from elsewhere than the hierarchy's source, and why

  int dramLevel() const { return static_cast<int>(levels.size()) - 1; }
  const MemoryLevel& dram() const { return levels.back(); }
  std::int64_t peCount() const { return pe.height * pe.width; }
};

/// One declared parameter of a hierarchy file: its JSON path (a level's fields as "levels[].entries"), unit,
/// range and meaning. Views and docs read this table; the reader validates against it.
struct HierarchyField {
  std::string_view path, unit;
  double min, max;
  bool integer;
  std::string_view description;
};
const std::vector<HierarchyField>& hierarchyFields();

/// One number of a hierarchy: its path in the file ("element_bytes", "pe_array.height",
/// "levels[2].row_bytes"), the level it belongs to (-1: none), its declaration and value.
struct HierarchyValue {
  std::string path;
  int level = -1;
  const HierarchyField* field = nullptr;
  double value = 0;
};
/// Every number of `h` in file order, defaults filled in (bandwidths); a level's banks and row_bytes only
/// where it has rows (the row buffer and DRAM). What a backend of family pim-hierarchy declares.
std::vector<HierarchyValue> hierarchyValues(const Hierarchy& h);
/// Sets the number at `path` (as hierarchyValues names it); InputError "<origin>: <where>: ..." for an
/// unknown path or a value outside its declaration (`where` names the field in the message, `path` if
/// empty). Call checkHierarchy once every change is made.
void setHierarchyValue(Hierarchy& h, std::string_view path, double value, std::string_view origin,
                       std::string_view where = {});
/// The checks across fields every hierarchy gets (levels, one PE buffer per PE, DRAM's rows and stores);
/// InputError "<origin>: <field>: ...".
void checkHierarchy(const Hierarchy& h, std::string_view origin);

/// Reads and validates a hierarchy file; InputError "<file>: <field>: ..." for anything missing, ill-typed,
/// out of range or inconsistent (no PE buffer or DRAM level, a DRAM without rows, PE instances below the
/// array's PEs, bandwidth 0).
Hierarchy loadHierarchyFile(const std::string& path);
Hierarchy parseHierarchyJson(std::string_view text, std::string_view origin);

/// The shipped hierarchies (datasets/hierarchies/*.json), by name; InputError naming the known ones.
std::vector<std::string> builtinHierarchyNames();
Hierarchy builtinHierarchy(std::string_view name);

}  // namespace pim::convmap
