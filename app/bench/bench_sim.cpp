// SPDX-License-Identifier: Apache-2.0
// Simulator speed on the HBM2-PIM calibration kernels (target: < 3.5 ms per GEMV 4096x4096 on 64 pCH).
#include <benchmark/benchmark.h>

#include "engine/target/dram_pim/device_config.h"
#include "engine/target/registry.h"
#include "sim/simulator.h"
#include "sim/synthetic_streams.h"
#include "sim/vector_proc.h"
#include "sim/vendor_attacc.h"
#include "sim/vendor_hbm2pim.h"

using namespace pim::sim;

static void BM_SimHbm2PimGemv4096(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("hbm2-pim"));
  for (auto _ : st) {
    const Program p = hbm2pimGemv(c, 64, 4096, 4096);
    benchmark::DoNotOptimize(simulate(c, p).totalCycles);
  }
}
BENCHMARK(BM_SimHbm2PimGemv4096)->Unit(benchmark::kMillisecond);

static void BM_SimHbm2PimAdd1M(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("hbm2-pim"));
  for (auto _ : st) {
    const Program p = hbm2pimAdd(c, 64, 1 << 20);
    benchmark::DoNotOptimize(simulate(c, p).totalCycles);
  }
}
BENCHMARK(BM_SimHbm2PimAdd1M)->Unit(benchmark::kMillisecond);

// CoMoNM's VECTOR_PROC estimate of the same two programs (sim/vector_proc.h): one blocking stream per
// channel, the program built once outside the loop (the engine's figures above include building it).
static void vectorProc(benchmark::State& st, const Program& p, const DeviceConfig& c) {
  for (auto _ : st) benchmark::DoNotOptimize(vectorProcCycles(c, p, Phase::Compute));
}
static void BM_VectorProcHbm2PimGemv4096(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("hbm2-pim"));
  vectorProc(st, hbm2pimGemv(c, 64, 4096, 4096), c);
}
BENCHMARK(BM_VectorProcHbm2PimGemv4096)->Unit(benchmark::kMicrosecond);
static void BM_VectorProcHbm2PimAdd1M(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("hbm2-pim"));
  vectorProc(st, hbm2pimAdd(c, 64, 1 << 20), c);
}
BENCHMARK(BM_VectorProcHbm2PimAdd1M)->Unit(benchmark::kMicrosecond);

// Long regular streams as the DCC lowering emits them (refresh on).
namespace {
// `iters` iterations of one HOST_RD (or HOST_WR) per bank of the channel, columns advancing (carry into
// rows).
Program interleavedHost(const DeviceConfig& c, int64_t bursts, bool write) {
  ProgramBuilder b(Phase::InputRearrangement);
  const int nb = c.banksPerChannel();
  b.beginLoop(bursts / nb);
  for (int p = 0; p < c.pseudoChannels; ++p)
    for (int r = 0; r < c.ranks; ++r)
      for (int g = 0; g < c.bankGroups; ++g)
        for (int k = 0; k < c.banksPerBankGroup; ++k) {
          Command cmd;
          cmd.op = write ? Op::HOST_WR : Op::HOST_RD;
          cmd.phase = Phase::InputRearrangement;
          cmd.pch = uint8_t(p), cmd.rank = uint8_t(r), cmd.bg = uint8_t(g), cmd.bank = uint8_t(k);
          cmd.row = 8192;
          cmd.colStep = 1;
          b.add(cmd);
        }
  b.endLoop();
  return Program::replicated(b.take(), 16);
}
Program broadcastStream(Op op, int64_t n, uint64_t mask) {
  ProgramBuilder b;
  b.beginLoop(n);
  Command cmd;
  cmd.op = op;
  cmd.bankMask = mask;
  cmd.row = 100;
  cmd.colStep = 1;
  b.add(cmd);
  b.endLoop();
  return Program::replicated(b.take(), 16);
}
// What a host stream achieves against its data buses: each pseudo-channel moves one burst per burstCycles().
void hostStreamCounters(benchmark::State& st, const DeviceConfig& c, int64_t bursts, int64_t cycles) {
  st.counters["cycles"] = static_cast<double>(cycles);
  st.counters["bursts_per_cycle"] = static_cast<double>(bursts) / static_cast<double>(cycles);
  st.counters["bus_peak"] = static_cast<double>(c.pseudoChannels) / c.burstCycles();
}
}  // namespace

static void BM_SimAttaccHostRd1M(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("attacc"));
  const Program p = interleavedHost(c, 1000000, false);
  int64_t cycles = 0;
  for (auto _ : st) cycles = simulate(c, p).totalCycles;
  hostStreamCounters(st, c, 1000000, cycles);
}
BENCHMARK(BM_SimAttaccHostRd1M)->Unit(benchmark::kMillisecond);

static void BM_SimAttaccHostWr1M(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("attacc"));
  const Program p = interleavedHost(c, 1000000, true);
  int64_t cycles = 0;
  for (auto _ : st) cycles = simulate(c, p).totalCycles;
  hostStreamCounters(st, c, 1000000, cycles);
}
BENCHMARK(BM_SimAttaccHostWr1M)->Unit(benchmark::kMillisecond);

static void BM_SimAttaccMacab200k(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("attacc"));
  const Program p = broadcastStream(Op::MACAB, 200000, 0);
  for (auto _ : st) benchmark::DoNotOptimize(simulate(c, p).totalCycles);
}
BENCHMARK(BM_SimAttaccMacab200k)->Unit(benchmark::kMillisecond);

static void BM_SimHbmPimMac200k(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("hbm-pim"));
  const Program p = broadcastStream(Op::PIM_MAC, 200000, 0x0F0F0F0F0F0F0F0FULL);
  for (auto _ : st) benchmark::DoNotOptimize(simulate(c, p).totalCycles);
}
BENCHMARK(BM_SimHbmPimMac200k)->Unit(benchmark::kMillisecond);

// AttAcc's buffer moves of a long GEMV output (30,720 iterations of one MVSB per bank group, as the 8 x
// 131,072 x 28,672 GEMV's best draft emits per channel), between two MAC streams: the moves advance no column
// frontier, so fast-forward cannot skip them and must not snapshot every one of them (25 s for that draft).
static void BM_SimAttaccBufferMoves30k(benchmark::State& st) {
  const DeviceConfig c = pim::deviceConfigFor(pim::builtinBackends().get("attacc"));
  const Program p = bufferMoveLoop(c, 20000, 30720, false, 16);
  for (auto _ : st) benchmark::DoNotOptimize(simulate(c, p).totalCycles);
}
BENCHMARK(BM_SimAttaccBufferMoves30k)->Unit(benchmark::kMillisecond);
