// SPDX-License-Identifier: Apache-2.0
// Energy per inference of a profiled crossbar program (issue 19; ../shared/specs/crossbar.md, "Power and
// area"). PIMCOMP-NN prints no energy, so this is PIMScope's model on top of DAC'23 Table I: every component
// draws its rated power while busy and a leakage fraction of it while idle.
#pragma once
#include <cstdint>
#include <string_view>

#include "sim/crossbar/xbar_profiler.h"

namespace pim::xbar {

/// One row of the power-and-area table.
struct ComponentRating {
  double powerMw = 0;              // mW, for the configuration below
  double areaMm2 = 0;              // mm² (reported, not used by the energy model)
  std::string_view configuration;  // the table's configuration column
};

/// The crossbars of one core's PIMMU: logical arrays of rows x cols cells, each holding an elementBits weight
/// in physical cells of cellBits.
struct PimmuShape {
  std::int64_t crossbars = 64;
  std::int64_t rows = 128;
  std::int64_t cols = 128;
  int elementBits = 16;
  int cellBits = 2;
};

struct EnergyParams {
  std::string_view source = "dac23 Table I";  // 32 nm, 1 GHz, 16-bit data, 2-bit ReRAM cells (PUMA-based)
  ComponentRating pimmu{1221.76, 0.77, "64 crossbars"};  // per core
  // What the PIMMU row rates: 64 arrays of 128x128 16-bit weights in 2-bit cells (1,221.76 mW = 64 x PUMA's
  // 19.09 mW MVMU, each one bit-sliced 128x128 16-bit array).
  PimmuShape pimmuReference{64, 128, 128, 16, 2};
  ComponentRating vfu{22.80, 0.048, "12 per core"};                  // per core, all twelve VFUs together
  ComponentRating localMemory{18.00, 0.085, "64 kB"};                // per core
  ComponentRating controlUnit{8.00, 0.11, "-"};                      // per core
  ComponentRating router{43.13, 0.14, "flit size 64"};               // per router
  int coresPerRouter = 4;                                            // derived: a 36-core chip has 9 routers
  ComponentRating globalMemory{257.72, 2.42, "4 MB"};                // per chip
  ComponentRating hyperTransport{10400.0, 22.88, "6.40 GB/s link"};  // per chip (only when there are >1)
  // ASSUMED, not from the table: the table gives total power with no dynamic/static split, so an idle
  // component is taken to draw this fraction of its rated power (leakage).
  double leakageFraction = 0.1;
};

EnergyParams dac23TableI();

/// Throws std::invalid_argument naming the first field that is out of range.
void validate(const EnergyParams& params);

/// PIMMU power relative to the reference PIMMU: linear in physical cells, i.e. in
/// crossbars x rows x cols x ceil(elementBits / cellBits) (every physical array brings its own cells, drivers
/// and converters). 1 for the reference itself.
double pimmuPowerScale(const PimmuShape& shape, const PimmuShape& reference);

/// Energy in nJ by component. busyNj is what components draw at full power while busy, idleNj their leakage
/// over the rest of the run; totalNj is their sum and the sum of the components.
struct EnergyBreakdown {
  double pimmuNj = 0;
  double vfuNj = 0;
  double localMemoryNj = 0;
  double controlUnitNj = 0;
  double routerNj = 0;
  double globalMemoryNj = 0;
  double hyperTransportNj = 0;
  double busyNj = 0;
  double idleNj = 0;
  double totalNj = 0;
};

/// Busy times (each capped at the run, totalNs):
/// - PIMMU, per core: every MVMUL keeps the arrays it drives busy for one MVM latency, so the PIMMU is busy
///   crossbarActivations x mvmLatencyNs / crossbars (overlapping MVMUL of different AGs add up);
/// - VFU: vfuBusyNs; local memory: copyBusyNs + loadStoreBusyNs; control unit: the core's endNs;
/// - router (ceil(cores on the chip / coresPerRouter) per chip): the chip's busBusyNs, one router per
/// transfer;
/// - global memory: the chip's globalMemoryBusyNs; HyperTransport: the chip's hyperTransportBusyNs.
EnergyBreakdown estimateEnergy(const ProfileResult& profile, const PimmuShape& shape,
                               const EnergyParams& params = dac23TableI());

}  // namespace pim::xbar
