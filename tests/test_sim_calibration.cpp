// SPDX-License-Identifier: Apache-2.0
// Calibration against the published reference figures (hbm2-pim.md, attacc.md) and conformance checks.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/gpu_model.h"
#include "sim/simulator.h"
#include "sim/vendor_attacc.h"
#include "sim/vendor_hbm2pim.h"
#include "tests/shipped_device.h"

using namespace pim::sim;

namespace {
void expectWithin(double got, double want, double rel) {
  EXPECT_LE(std::abs(got - want), rel * want) << "got " << got << " want " << want;
}
}  // namespace

TEST(SimCalibration, Hbm2PimGemv4096On64Channels) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  const Result r = simulate(c, hbm2pimGemv(c, 64, 4096, 4096));
  expectWithin(double(r.phase(Phase::Compute)), 13166, 0.005);
  EXPECT_EQ(r.distinctProgramsSimulated, 1);
  EXPECT_EQ(r.banks.size(), 64u * 32u);
}

TEST(SimCalibration, Hbm2PimAdd1MOn64Channels) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  const Result r = simulate(c, hbm2pimAdd(c, 64, 1 << 20));
  expectWithin(double(r.phase(Phase::Compute)), 3349, 0.005);
}

// hbm2-pim.md gives the two above; issue 16 adds these. With refresh off every cycle is protocol (park, mode
// switches, CRF, one output tile); RELU 2^20 has its rank-0 refresh fall due in the epilogue, where the lazy
// close lets the kernel finish first.
TEST(SimCalibration, Hbm2PimGemv4096x128RefreshOffOn64Channels) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  const Result r = simulate(c, hbm2pimGemv(c, 64, 4096, 128));
  expectWithin(double(r.phase(Phase::Compute)), 750, 0.005);
}

TEST(SimCalibration, Hbm2PimRelu1MOn64Channels) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  const Result r = simulate(c, hbm2pimRelu(c, 64, 1 << 20));
  expectWithin(double(r.phase(Phase::Compute)), 2042, 0.005);
}

// Power constraint on, B=1 H=32 L=2048 d=128 on one AttAcc device: 3,810 cycles (2.93 us).
TEST(SimCalibration, AttaccDecodeAttention) {
  const DeviceConfig c = pim::test::shippedDevice("attacc");
  const Result r = simulate(c, attaccDecodeAttention(c, 1, 32, 2048, 128));
  expectWithin(double(r.totalCycles), 3810, 0.005);
  expectWithin(r.totalNs, 2930, 0.006);
}

// Several heads per channel (attacc.md): B=16, H=32 -> 103 heads per stack, 7 iterations; L=128, d=128, power
// constraint on: AttAcc's simulator takes 1,797 cycles. Ours: 1,788 (-0.50%), from its pipelined head pairs
// (buffer moves alongside the MACABs, the second head's context issued as the first one's again).
TEST(SimCalibration, AttaccDecodeAttentionHeadsShareChannels) {
  const DeviceConfig c = pim::test::shippedDevice("attacc");
  const Result r = simulate(c, attaccDecodeAttention(c, 16, 32, 128, 128));
  EXPECT_EQ(r.totalCycles, 1788);
  expectWithin(double(r.totalCycles), 1797, 0.0051);
}

TEST(SimCalibration, GpuDecodeAttention) {
  expectWithin(gpuDecodeAttention(1, 32, 2048, 128).time_s * 1e6, 40.39, 0.001);
}

// Breakdown parts are >= 0 and add up to the total; bytes equal 32 B per column command; rearrangement
// phases appear only when requested and (refresh off: refresh is periodic in absolute time) do not change
// the compute phase.
TEST(SimConformance, BreakdownAndBytes) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  const Result plain = simulate(c, hbm2pimAdd(c, 4, 2048 * 4 * 3));
  for (bool rearr : {false, true}) {
    const Result r = simulate(c, hbm2pimEltwise(c, 4, 2048 * 4 * 3, Hbm2EltOp::Add,
                                                rearr ? Hbm2Copies::all() : Hbm2Copies::none()));
    int64_t sum = 0;
    for (int p = 0; p < kNumPhases; ++p) {
      EXPECT_GE(r.phaseCycles[p], 0);
      sum += r.phaseCycles[p];
    }
    EXPECT_EQ(sum, r.totalCycles);
    int64_t bytes = 0, cols = 0;
    for (const BankStats& b : r.banks) {
      bytes += b.bytesRead + b.bytesWritten;
      cols += b.columnCommands;
    }
    EXPECT_EQ(bytes, cols * 32);
    // The host leaves rows open, so park-in pays one extra tRP at most.
    EXPECT_GE(r.phase(Phase::Compute), plain.phase(Phase::Compute));
    EXPECT_LE(r.phase(Phase::Compute) - plain.phase(Phase::Compute), c.tRP);
    EXPECT_EQ(r.phase(Phase::InputRearrangement) > 0, rearr);
    EXPECT_GT(r.energy.total_pJ(), 0.0);
  }
}

TEST(SimConformance, ChromeTraceIsWellFormed) {
  const DeviceConfig c = pim::test::shippedDevice("attacc");
  SimOptions o;
  o.trace.enabled = true;
  o.trace.end = 300;
  const Result r = simulate(c, attaccDecodeAttention(c, 1, 32, 256, 128), o);
  const std::string j = r.chromeTraceJson();
  EXPECT_EQ(j.rfind("{\"traceEvents\":[", 0), 0u);
  EXPECT_NE(j.find("\"MACAB\""), std::string::npos);
  EXPECT_EQ(j.back(), '}');
}
