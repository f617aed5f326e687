// SPDX-License-Identifier: Apache-2.0
// The crossbar energy model (issue 19; ../shared/specs/crossbar.md, "Power and area"): rated power while
// busy, a leakage fraction of it while idle, summed over components.
#include "sim/crossbar/xbar_energy.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pim::xbar {

namespace {

constexpr double kNjPerMwNs = 1e-3;  // 1 mW x 1 ns = 1e-12 J

void requireNonNegative(double value, const char* field) {
  if (!(value >= 0)) throw std::invalid_argument(std::string("EnergyParams.") + field + " must be >= 0");
}

void requirePositive(const PimmuShape& s, const char* name) {
  if (s.crossbars <= 0 || s.rows <= 0 || s.cols <= 0 || s.elementBits <= 0 || s.cellBits <= 0)
    throw std::invalid_argument(std::string(name) +
                                ": crossbars, rows, cols, elementBits and cellBits must be positive");
}

double physicalCells(const PimmuShape& s) {
  const std::int64_t slices = (s.elementBits + s.cellBits - 1) / s.cellBits;
  return double(s.crossbars) * double(s.rows) * double(s.cols) * double(slices);
}

// Busy energy plus idle leakage of `units` identical components over a run of runNs, busyNs of it busy
// (summed over the units). Adds both parts to the breakdown's totals.
double componentNj(double powerMw, double units, double busyNs, double runNs, double leakage,
                   EnergyBreakdown& e) {
  const double busy = std::min(busyNs, units * runNs);
  const double busyNj = powerMw * busy * kNjPerMwNs;
  const double idleNj = powerMw * leakage * (units * runNs - busy) * kNjPerMwNs;
  e.busyNj += busyNj;
  e.idleNj += idleNj;
  return busyNj + idleNj;
}

}  // namespace

EnergyParams dac23TableI() { return EnergyParams{}; }

void validate(const EnergyParams& p) {
  requireNonNegative(p.pimmu.powerMw, "pimmu.powerMw");
  requireNonNegative(p.vfu.powerMw, "vfu.powerMw");
  requireNonNegative(p.localMemory.powerMw, "localMemory.powerMw");
  requireNonNegative(p.controlUnit.powerMw, "controlUnit.powerMw");
  requireNonNegative(p.router.powerMw, "router.powerMw");
  requireNonNegative(p.globalMemory.powerMw, "globalMemory.powerMw");
  requireNonNegative(p.hyperTransport.powerMw, "hyperTransport.powerMw");
  if (p.coresPerRouter <= 0) throw std::invalid_argument("EnergyParams.coresPerRouter must be positive");
  if (!(p.leakageFraction >= 0 && p.leakageFraction <= 1))
    throw std::invalid_argument("EnergyParams.leakageFraction must be within [0, 1]");
  requirePositive(p.pimmuReference, "EnergyParams.pimmuReference");
}

double pimmuPowerScale(const PimmuShape& shape, const PimmuShape& reference) {
  requirePositive(shape, "pimmuPowerScale shape");
  requirePositive(reference, "pimmuPowerScale reference");
  return physicalCells(shape) / physicalCells(reference);
}

EnergyBreakdown estimateEnergy(const ProfileResult& profile, const PimmuShape& shape, const EnergyParams& p) {
  validate(p);
  const double pimmuMw = p.pimmu.powerMw * pimmuPowerScale(shape, p.pimmuReference);
  const double run = double(profile.totalNs);
  const double leak = p.leakageFraction;
  EnergyBreakdown e;
  for (const CoreProfile& c : profile.cores) {
    const double pimmuBusy =
        double(c.crossbarActivations) * double(profile.mvmLatencyNs) / double(shape.crossbars);
    e.pimmuNj += componentNj(pimmuMw, 1, pimmuBusy, run, leak, e);
    e.vfuNj += componentNj(p.vfu.powerMw, 1, double(c.vfuBusyNs), run, leak, e);
    e.localMemoryNj +=
        componentNj(p.localMemory.powerMw, 1, double(c.copyBusyNs + c.loadStoreBusyNs), run, leak, e);
    e.controlUnitNj += componentNj(p.controlUnit.powerMw, 1, double(c.endNs), run, leak, e);
  }
  const std::int64_t cores = std::int64_t(profile.cores.size());
  const bool multiChip = profile.chips.size() > 1;
  for (std::size_t chip = 0; chip < profile.chips.size(); ++chip) {
    const ChipProfile& k = profile.chips[chip];
    const std::int64_t coresOnChip =
        std::min<std::int64_t>(profile.coresPerChip, cores - std::int64_t(chip) * profile.coresPerChip);
    const double routers = double((coresOnChip + p.coresPerRouter - 1) / p.coresPerRouter);
    e.routerNj += componentNj(p.router.powerMw, routers, double(k.busBusyNs), run, leak, e);
    e.globalMemoryNj += componentNj(p.globalMemory.powerMw, 1, double(k.globalMemoryBusyNs), run, leak, e);
    if (multiChip)
      e.hyperTransportNj +=
          componentNj(p.hyperTransport.powerMw, 1, double(k.hyperTransportBusyNs), run, leak, e);
  }
  e.totalNj = e.busyNj + e.idleNj;
  return e;
}

}  // namespace pim::xbar
