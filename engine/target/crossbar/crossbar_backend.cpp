// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/crossbar_backend.h"

#include <string>

#include "engine/common/error.h"
#include "engine/hw/backend.h"

namespace pim {
namespace {

using K = ParamDecl::Kind;

// Key, kind, physical lower bound: the one list the schema declares and the readers below read.
const std::vector<ParamDecl>& decls() {
  static const std::vector<ParamDecl> d = {
      {"accelerator.chips", K::Integer, 1},
      {"accelerator.coresX", K::Integer, 1},
      {"accelerator.coresY", K::Integer, 1},
      {"accelerator.interChipGBps", K::Real, 0},
      {"chip.busGBps", K::Real, 0},
      {"chip.globalMemoryGBps", K::Real, 0},
      {"chip.globalMemoryBytes", K::Integer, 1},
      {"chip.synchronousCommunication", K::Flag, 0},
      {"core.crossbars", K::Integer, 1},
      {"core.localMemoryBytes", K::Integer, 1},
      {"core.localMemoryGBps", K::Real, 0},
      {"core.vectorBytesPerCycle", K::Integer, 1},
      {"core.vectorCycleNs", K::Real, 0},
      {"core.outOfOrder", K::Flag, 0},
      {"crossbar.rows", K::Integer, 1},
      {"crossbar.columns", K::Integer, 1},
      {"crossbar.elementBits", K::Integer, 1},
      {"crossbar.cellBits", K::Integer, 1},
      {"timing.frequencyGHz", K::Real, 0},
      {"timing.mvmReadNs", K::Real, 0},
      {"timing.mvmPerBitNs", K::Real, 0},
      {"timing.mvmAdcNs", K::Real, 0},
      {"timing.mvmShiftAddNs", K::Real, 0},
      {"timing.mvmWriteNs", K::Real, 0},
      {"timing.mvmIntervalNs", K::Real, 0},
      {"timing.pimcompNnMvmNs", K::Real, 0},
      {"timing.pimcompNnCoresPerChip", K::Integer, 1},
      {"energy.pimmuMw", K::Real, 0},
      {"energy.pimmuCrossbars", K::Integer, 1},
      {"energy.pimmuRows", K::Integer, 1},
      {"energy.pimmuColumns", K::Integer, 1},
      {"energy.vfuMw", K::Real, 0},
      {"energy.localMemoryMw", K::Real, 0},
      {"energy.controlMw", K::Real, 0},
      {"energy.routerMw", K::Real, 0},
      {"energy.coresPerRouter", K::Integer, 1},
      {"energy.globalMemoryMw", K::Real, 0},
      {"energy.hyperTransportMw", K::Real, 0},
      {"energy.leakageFraction", K::Real, 0},
  };
  return d;
}

std::int64_t integer(const Backend& b, const char* key) {
  return static_cast<std::int64_t>(crossbarValue(b, key));
}

/// Chips split the cores evenly: a layout that does not divide is refused rather than rounded.
void crossCheck(const Backend& b, std::string_view origin) {
  const std::int64_t cores = integer(b, "accelerator.coresX") * integer(b, "accelerator.coresY");
  const std::int64_t chips = integer(b, "accelerator.chips");
  if (cores % chips != 0)
    throw InputError(std::string(origin) + ": accelerator.chips: " + std::to_string(chips) +
                     " chips do not split " + std::to_string(cores) + " cores evenly");
  if (crossbarValue(b, "energy.leakageFraction") > 1)
    throw InputError(std::string(origin) + ": energy.leakageFraction: must be at most 1");
}

}  // namespace

BackendSchema crossbarSchema() {
  BackendSchema s;
  s.sections = {"accelerator", "chip", "core", "crossbar", "timing", "energy"};
  s.params = decls();
  s.crossCheck = crossCheck;
  return s;
}

double crossbarValue(const Backend& b, const char* key) {
  const Parameter* p = b.param(key);
  if (!p) throw InputError((b.file.empty() ? b.name : b.file) + ": " + key + ": missing");
  return p->value;
}

crossbar::Accelerator acceleratorOf(const Backend& b) {
  crossbar::Accelerator a;
  a.name = b.name;
  a.rows = integer(b, "crossbar.rows");
  a.cols = integer(b, "crossbar.columns");
  a.crossbarsPerCore = integer(b, "core.crossbars");
  a.coresX = integer(b, "accelerator.coresX");
  a.coresY = integer(b, "accelerator.coresY");
  a.chips = integer(b, "accelerator.chips");
  a.localMemoryBytes = integer(b, "core.localMemoryBytes");
  a.elementBits = static_cast<int>(integer(b, "crossbar.elementBits"));
  a.cellBits = static_cast<int>(integer(b, "crossbar.cellBits"));
  return a;
}

}  // namespace pim
