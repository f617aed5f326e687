// SPDX-License-Identifier: Apache-2.0
// Hardware model: DCC's multi-layer PIM abstraction (section 4.1) — system, PIM group, PIM core — plus the
// DRAM organisation, timing and per-command energies the simulator needs. A backend is one JSON file in
// datasets/backends/; every numeric parameter carries its unit, valid range, description and source.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/data_dir.h"
#include "engine/hw/schema.h"
#include "engine/kernel/kernel.h"

namespace pim {

/// One declared numeric parameter, e.g. key "timing.tRCD_RD", 14 cycles, from shared/specs/hbm2-pim.md.
/// The GUI builds its what-if forms from these declarations.
struct Parameter {
  std::string key;  // "<section>.<name>"
  double value = 0;
  std::string unit;  // "cycles", "ns", "bytes", "GB/s", "pJ", "count", "MHz", "bool", ...
  double min = 0;    // inclusive valid range, checked on load and on every change
  double max = 0;
  bool integer = true;  // must hold an integral value
  std::string description;
  std::string source;  // citation: document and section/table, or "derived: <formula>"
};

/// System level: the host xPU and how many PIM devices hang off it.
struct SystemLevel {
  std::string host;                  // e.g. "NVIDIA A100 (HBM3)"
  double hostBandwidthGBps = 0;      // host <-> memory bandwidth
  std::int64_t hostOnChipBytes = 0;  // controllable on-chip memory for staged rearrangement (DCC 4.3 I)
  double hostTflops = 0;             // FP16 compute throughput
  int devices = 1;                   // PIM devices (stacks / chips / DIMM ranks) in the system
};

/// PIM group level: the cores sharing one memory channel (or pseudo-channel / rank).
struct GroupLevel {
  std::string level;  // "pseudo-channel", "channel", "rank"
  int groupsPerDevice = 1;
  bool broadcast = false;          // group-level broadcast commands (all cores, same address offsets)
  std::vector<std::string> units;  // group units, e.g. "accumulator", "softmax", "global-buffer"
  int pseudoChannelsPerGroup = 1;  // independent command/data buses inside one group
};

/// PIM core level: one processing unit and its local bank(s).
struct CoreLevel {
  int coresPerGroup = 1;
  int banksPerCore = 1;
  int fpuSharedBy = 1;               // cores sharing one datapath (HBM-PIM: 2 banks per FPU)
  int simdLanes = 1;                 // d of DCC rule 2; 1 = no SIMD
  std::int64_t registerBytes = 0;    // register file / buffer capacity per core
  std::int64_t dataMemoryBytes = 0;  // scratchpad per core (UPMEM WRAM), 0 if none
  double clockMHz = 0;               // core clock if not the DRAM clock (UPMEM DPU), else 0
  int threads = 1;                   // hardware threads per core (UPMEM tasklets)
  std::vector<std::string> ops;      // "mac", "add", "mul", "relu", "max", "exp", "softmax", "reduce", ...
  std::vector<DType> dtypes;
};

/// DRAM organisation of one device. Banks of one group = coresPerGroup * banksPerCore.
struct DramOrg {
  int pseudoChannels = 1;  // per device (JSON "dram.channels"), each with its own command and data bus
  int ranks = 1;           // ranks per pseudo-channel
  int bankGroups = 1;      // per rank
  int banksPerBankGroup = 1;
  std::int64_t rows = 0;  // per bank
  int columns = 0;        // column accesses per row
  int columnBytes = 32;   // bytes per column access (one burst)
  double tCKns = 1.0;     // command clock period
  int banksPerPseudoChannel() const { return ranks * bankGroups * banksPerBankGroup; }
  std::int64_t rowBytes() const { return std::int64_t{columns} * columnBytes; }
};

/// Standard DRAM timing, in cycles of tCK. Names follow JEDEC / Ramulator.
struct DramTiming {
  int CL = 0, CWL = 0, BL = 0;  // BL: data-bus cycles per burst are BL/2 for DDR
  int tRCDRD = 0, tRCDWR = 0, tRP = 0, tRAS = 0, tRC = 0;
  int tCCDS = 0, tCCDL = 0, tRRDS = 0, tRRDL = 0, tFAW = 0;
  int tWR = 0, tWTRS = 0, tWTRL = 0, tRTPS = 0, tRTPL = 0, tRTRS = 0;
  int tREFI = 0, tRFC = 0;
};

class Backend {
 public:
  std::string name;    // registry key, e.g. "hbm2-pim"
  std::string family;  // the hardware family, i.e. the target that models it (engine/target/registry.cpp)
  std::string description;                     // one line
  std::string file;                            // where it was loaded from
  std::map<std::string, std::string> sources;  // short source id -> document, cited as "<id>: <section>"

  SystemLevel system;
  GroupLevel group;
  CoreLevel core;
  DramOrg dram;
  DramTiming timing;
  std::map<std::string, double> pimTiming;  // backend-specific PIM command spacings ("pim.MACAB_to_MACAB")
  std::map<std::string, double> energyPj;   // per-command / per-byte energies ("energy.ACT")
  /// Every text field the family's schema declares, by "<section>.<name>" (a single string as one item);
  /// system.host and the other DCC-level ones are also in the typed views above.
  std::map<std::string, std::vector<std::string>> textFields;

  /// Every numeric parameter in file order, with provenance. The typed views above are derived from it.
  std::vector<Parameter> parameters;
  /// The family's schema the parameters were validated against (owned by the target registry); what-if edits
  /// are checked against it too.
  const BackendSchema* schema = nullptr;

  const Parameter* param(std::string_view key) const;
  /// Changes one parameter (what-if), validates its range, and refreshes the typed views. Throws InputError.
  void setParameter(std::string_view key, double value);
  /// Changes several parameters at once (fields checked against each other only after all are set).
  void setParameters(const std::vector<std::pair<std::string, double>>& changes);
  /// The same backend restricted to `pseudoChannels` pseudo-channels on one device (whole groups only).
  /// Throws InputError naming the valid range.
  Backend withPseudoChannels(int pseudoChannels) const;

  int totalGroups() const { return system.devices * group.groupsPerDevice; }
  int coresPerGroup() const { return core.coresPerGroup; }
  int banksPerPimGroup() const { return core.coresPerGroup * core.banksPerCore; }
  /// Ranks per pseudo-channel whose banks hold PIM cores ("dram.pimRanks", default dram.ranks). HBM2-PIM's
  /// calibration system has two ranks per channel but PIM units only in one.
  int pimRanks() const;
  bool supportsOp(std::string_view op) const;
  bool hasUnit(std::string_view unit) const;
  /// Stable hex digest of name, family and every parameter value: identifies results in the store.
  std::string hash() const;
  /// Serialises back to the JSON file format (round-trips through parseBackend).
  std::string toJson() const;
};

/// Parses a backend from JSON text against the schema of the family it names, found in `catalog`; `origin`
/// names the file in messages. Throws InputError naming the file and the field
/// ("datasets/backends/x.json: timing.tRCD_RD: missing") for malformed or out-of-range input or an unknown
/// family. engine/target/registry.h has the forms that use the registered targets.
Backend parseBackend(std::string_view jsonText, std::string_view origin, const ISchemaCatalog& catalog);
Backend loadBackendFile(const std::string& path, const ISchemaCatalog& catalog);

/// Backends by name. The shipped ones: builtinBackends() (engine/target/registry.h).
class BackendRegistry {
 public:
  void add(Backend b);
  const std::vector<Backend>& all() const { return m_backends; }
  /// Throws InputError listing the known names when unknown.
  const Backend& get(std::string_view name) const;

 private:
  std::vector<Backend> m_backends;
};

}  // namespace pim
