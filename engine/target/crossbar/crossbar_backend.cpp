// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/crossbar_backend.h"

#include <string>

#include "engine/common/error.h"
#include "engine/hw/backend.h"

#include <cmath>
#include <stdexcept>

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

/// `params` after the model's own check, whose refusal names the backend: what-if edits can reach values the
/// schema's ranges allow but the model does not.
template <class Params>
Params validated(const Backend& b, Params params) {
  try {
    xbar::validate(params);
  } catch (const std::invalid_argument& e) {
    throw InputError((b.file.empty() ? b.name : b.file) + ": " + e.what());
  }
  return params;
}

std::int64_t ns(const Backend& b, const char* key) { return std::llround(crossbarValue(b, key)); }

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

xbar::TimingParams timingParamsOf(const Backend& b, crossbar::TimingMode mode) {
  const crossbar::Accelerator a = acceleratorOf(b);
  xbar::TimingParams t;
  const bool compatible = mode == crossbar::TimingMode::PimcompNn;
  t.mvmLatencyNs = compatible ? ns(b, "timing.pimcompNnMvmNs")
                              : ns(b, "timing.mvmReadNs") + a.elementBits * ns(b, "timing.mvmPerBitNs") +
                                    ns(b, "timing.mvmAdcNs") + ns(b, "timing.mvmShiftAddNs") +
                                    ns(b, "timing.mvmWriteNs");
  t.mvmIssueIntervalNs = ns(b, "timing.mvmIntervalNs");
  t.elementBits = a.elementBits;
  t.vectorBytesPerStep = ns(b, "core.vectorBytesPerCycle");
  t.vectorStepNs = ns(b, "core.vectorCycleNs");
  t.localMemoryGBps = crossbarValue(b, "core.localMemoryGBps");
  t.globalMemoryGBps = crossbarValue(b, "chip.globalMemoryGBps");
  t.busGBps = crossbarValue(b, "chip.busGBps");
  t.hyperTransportGBps = crossbarValue(b, "accelerator.interChipGBps");
  t.coresPerChip = static_cast<int>(compatible ? ns(b, "timing.pimcompNnCoresPerChip") : a.cores() / a.chips);
  t.frequencyGHz = crossbarValue(b, "timing.frequencyGHz");
  // PIMCOMP-NN's evaluator has one execution pattern, out of order with synchronous transfers, so its mode
  // keeps that pattern whatever the file declares; the intended mode follows the declared hardware.
  t.outOfOrder = compatible || crossbarValue(b, "core.outOfOrder") != 0;
  t.synchronous = compatible || crossbarValue(b, "chip.synchronousCommunication") != 0;
  return validated(b, t);
}

xbar::EnergyParams energyParamsOf(const Backend& b) {
  xbar::EnergyParams e = xbar::dac23TableI();
  e.pimmu.powerMw = crossbarValue(b, "energy.pimmuMw");
  e.pimmuReference.crossbars = ns(b, "energy.pimmuCrossbars");
  e.pimmuReference.rows = ns(b, "energy.pimmuRows");
  e.pimmuReference.cols = ns(b, "energy.pimmuColumns");
  e.vfu.powerMw = crossbarValue(b, "energy.vfuMw");
  e.localMemory.powerMw = crossbarValue(b, "energy.localMemoryMw");
  e.controlUnit.powerMw = crossbarValue(b, "energy.controlMw");
  e.router.powerMw = crossbarValue(b, "energy.routerMw");
  e.coresPerRouter = static_cast<int>(ns(b, "energy.coresPerRouter"));
  e.globalMemory.powerMw = crossbarValue(b, "energy.globalMemoryMw");
  e.hyperTransport.powerMw = crossbarValue(b, "energy.hyperTransportMw");
  e.leakageFraction = crossbarValue(b, "energy.leakageFraction");
  return validated(b, e);
}

}  // namespace pim
