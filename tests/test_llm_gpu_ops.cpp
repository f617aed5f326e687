// SPDX-License-Identifier: Apache-2.0
// The A100 model of AttAcc's simulator (src/devices.py xPU): FLOPs and sizes, the tile search, times, energy.
// Expected numbers are derived by hand in the comments (A100: 312 TFLOP/s x 0.8, 3352 GB/s x 0.85, 108 SMs).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "engine/common/error.h"
#include "engine/llm/gpu_ops.h"

namespace pim::llm {
namespace {

constexpr double kFlopRate = 312e12 * 0.8;  // achievable FP16 FLOP/s at full SM utilisation
constexpr double kBw = 3352e9 * 0.85;       // achievable HBM3 bytes/s at full SM utilisation

GpuOp makeOp(GpuOpKind kind, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t numOp,
             int dbyte = 2, ActKind act = ActKind::Gelu) {
  GpuOp op;
  op.kind = kind;
  op.act = act;
  op.m = m;
  op.n = n;
  op.k = k;
  op.numOp = numOp;
  op.dbyte = dbyte;
  return op;
}

void expectRel(double actual, double expected, double rel = 1e-12) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected;
}

TEST(LlmGpuOps, FlopsAndSizesPerKind) {
  // m=2, n=3, k=4, numOp=5, FP16: m*n*numOp = 30 elements.
  auto fc = makeOp(GpuOpKind::Fc, 2, 3, 4, 5);
  EXPECT_EQ(gpuOpFlops(fc), 2 * 2 * 3 * 4 * 5);  // 240
  GpuOpSizes s = gpuOpSizes(fc);
  EXPECT_EQ(s.in1, 5 * 2 * 4 * 2);  // A: numOp*m*k*dbyte = 80
  EXPECT_EQ(s.in2, 5 * 3 * 4 * 2);  // B: 120
  EXPECT_EQ(s.out, 5 * 2 * 3 * 2);  // C: 60
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Matmul, 2, 3, 4, 5)), 240);
  EXPECT_EQ(gpuOpSizes(makeOp(GpuOpKind::Matmul, 2, 3, 4, 5)).total(), 260);

  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Softmax, 2, 3, 4, 5)), 5 * 30);
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Norm, 2, 3, 1, 5)), 5 * 30);
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Act, 2, 3, 1, 5, 2, ActKind::Gelu)), 8 * 30);
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Act, 2, 3, 1, 5, 2, ActKind::Relu)), 1 * 30);
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Act, 2, 3, 1, 5, 2, ActKind::Glu)), 9 * 30);
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::AllReduce, 2, 3, 1, 5)), 0);
  EXPECT_EQ(gpuOpFlops(makeOp(GpuOpKind::Link, 2, 3, 1, 5)), 0);

  // Element-wise: in1 = out = 30 elements * 2 B = 60 (k ignored); Glu adds its gate input, Norm a residual.
  auto sizes = [](GpuOp op) {
    GpuOpSizes z = gpuOpSizes(op);
    return std::array<std::int64_t, 3>{z.in1, z.in2, z.out};
  };
  using A = std::array<std::int64_t, 3>;
  EXPECT_EQ(sizes(makeOp(GpuOpKind::Softmax, 2, 3, 4, 5)), (A{60, 0, 60}));
  EXPECT_EQ(sizes(makeOp(GpuOpKind::Act, 2, 3, 4, 5, 2, ActKind::Gelu)), (A{60, 0, 60}));
  EXPECT_EQ(sizes(makeOp(GpuOpKind::Act, 2, 3, 4, 5, 2, ActKind::Glu)), (A{60, 60, 60}));
  EXPECT_EQ(sizes(makeOp(GpuOpKind::Norm, 2, 3, 4, 5)), (A{60, 60, 60}));
  EXPECT_EQ(sizes(makeOp(GpuOpKind::AllReduce, 2, 3, 4, 5)), (A{60, 0, 60}));
  EXPECT_EQ(sizes(makeOp(GpuOpKind::Norm, 2, 3, 4, 5, 1)), (A{30, 30, 30}));  // FP8 halves the bytes
}

TEST(LlmGpuOps, SmallFcTileSearchByHand) {
  // m=1, n=512, k=512, FP16. L1: tm clamps to 1. traffic(1,tn) = (ceil(512/tn)*512 + 512*512 + 512)*2 and
  // thread blocks ceil(512/tn) < 108, so u = tb/108 and cost = traffic*(108/tb)^2:
  //   tn=8:  tb=64, traffic=(32768+262144+512)*2=590848, cost=590848*(108/64)^2 ~ 1.68e6
  //   tn=16: tb=32, traffic=558080, cost ~ 6.36e6; larger tn: traffic >= 525312, (108/tb)^2 x4 per step.
  // -> L1 tile (1, 8). L2: l2K = 512/64 = 8, rows {1, 1}, columns {8, 16, ..., 512, 512}, all fit 40 MiB;
  // access = 1*512*512*2 + ceil(512/tn)*512*2 + 512*2 is least at ceil = 1: first at tn = 512 -> (1, 512).
  GpuSystem sys;
  auto op = makeOp(GpuOpKind::Fc, 1, 512, 512, 1);
  GpuTile t = gpuOptimalTile(op, sys);
  EXPECT_EQ(t, (GpuTile{1, 8, 32, 1, 512, 8.0}));
  GpuOpCost c = gpuOpCost(op, sys);
  EXPECT_EQ(c.offchipBytes, (1 * 512 + 512 * 512 + 512) * 2);  // traffic(1, 512) = 526336
  EXPECT_EQ(c.l2Bytes, 590848);                                // traffic(1, 8)
  EXPECT_EQ(c.l1Bytes, (32 * 512 + 1 * 512 * 512 + 512) * 2);  // traffic(16, 16) = 558080
  EXPECT_EQ(c.regBytes, 3 * 512 * 512);                        // 786432
  EXPECT_EQ(c.flops, 2 * 512 * 512);
  // 64 thread blocks on 108 SMs: u = 64/108. Memory 526336/(kBw*64/108) = 0.312 us >> compute 3.5 ns.
  expectRel(c.computeTime_s, 524288.0 * 108 / (kFlopRate * 64));
  expectRel(c.time_s, 526336.0 * 108 / (kBw * 64));
  expectRel(c.time_s, 3.1173382001965464e-07);
  EXPECT_FALSE(c.computeBound);
}

TEST(LlmGpuOps, EnergyPartsOfTheSmallFc) {
  // pJ: off-chip 526336*28.72, L2 590848*2.4, L1 558080*1.28, registers 786432*0.0675, ALU 524288/2 MACs
  // * 0.32; all x gpus (each GPU runs its share).
  GpuSystem sys;
  GpuEnergy e = gpuOpCost(makeOp(GpuOpKind::Fc, 1, 512, 512, 1), sys).energy_pJ;
  expectRel(e.offchip, 15116369.92);
  expectRel(e.l2, 1418035.2);
  expectRel(e.l1, 714342.4);
  expectRel(e.reg, 53084.16);
  expectRel(e.alu, 83886.08);
  EXPECT_EQ(e.comm, 0);
  expectRel(e.total(), 15116369.92 + 1418035.2 + 714342.4 + 53084.16 + 83886.08);
  sys.gpus = 8;
  expectRel(gpuOpCost(makeOp(GpuOpKind::Fc, 1, 512, 512, 1), sys).energy_pJ.offchip, 8 * 15116369.92);
}

TEST(LlmGpuOps, Gpt13bDecodeQkvIsMemoryBound) {
  // GPT-3 13B QKV at batch 1 on one GPU: x[1x5120] * W[5120x15360]. L1: tm = 1;
  //   tn=8:  tb=1920 (u=1920/1944), traffic=(1920*5120+15360*5120+15360)*2=176977920, cost ~ 1.814e8
  //   tn=16: tb=960  (u=960/972 = the same), traffic=167147520, cost ~ 1.714e8
  //   tn=32: tb=480  (u=480/540), traffic=162232320, cost ~ 2.05e8; larger tn leave more SMs idle.
  // -> (1, 16). L2: all of n fits (160 + 162*15360 B << 40 MiB), least access at ceil(15360/tn) = 1 -> (1,
  // 15360). Off-chip = (5120 + 15360*5120 + 15360)*2 = 157327360 B: the weights once, x and y.
  GpuSystem sys;
  GpuOpCost c = gpuOpCost(makeOp(GpuOpKind::Fc, 1, 15360, 5120, 1), sys);
  EXPECT_EQ(c.tile, (GpuTile{1, 16, 32, 1, 15360, 80.0}));
  EXPECT_EQ(c.offchipBytes, 157327360);
  // 960 thread blocks = 9 waves, u = 960/972: 157327360/(kBw*960/972) = 55.9 us; compute 0.64 us.
  expectRel(c.time_s, 157327360.0 * 972 / (kBw * 960));
  expectRel(c.time_s, 5.590830829706585e-05);
  expectRel(c.computeTime_s, 2.0 * 15360 * 5120 * 972 / (kFlopRate * 960));
  EXPECT_FALSE(c.computeBound);
}

TEST(LlmGpuOps, PrefillQkvIsComputeBoundAndL2CapacityBinds) {
  // The same weights over 2048 prompt tokens. L1 tile (192, 320) (the search's pick, as the literal loop and
  // the reference): tb = ceil(2048/192)*ceil(15360/320) = 11*48 = 528, u = 528/540. L2: l2K = 80; the whole
  // (2048 x 15360) tile needs (2048+15360)*80*2 + 2048*15360*2 B > 40 MiB; tm = 2048 keeps A read once
  // (any smaller tm re-reads all 157 MB of weights), and the first multiple of 320 with ceil(15360/tn) = 2
  // is 7680: (2048+7680)*160 + 2048*7680*2 = 33013760 B fits. Off-chip = 15360*5120*2 + 2*2048*5120*2 +
  // 2048*15360*2 = 262144000 B.
  GpuSystem sys;
  auto op = makeOp(GpuOpKind::Fc, 2048, 15360, 5120, 1);
  GpuOpCost c = gpuOpCost(op, sys);
  EXPECT_EQ(c.tile, (GpuTile{192, 320, 32, 2048, 7680, 80.0}));
  EXPECT_EQ(c.tile, detail::gpuTileSearchLiteral(op, sys));
  EXPECT_EQ(c.offchipBytes, 262144000);
  expectRel(c.time_s, 2.0 * 2048 * 15360 * 5120 * 540 / (kFlopRate * 528));  // 1.32 ms
  EXPECT_TRUE(c.computeBound);
}

TEST(LlmGpuOps, L1TieKeepsTheFirstTileInSearchOrder) {
  // A square FC, m = n = k = 1024: (64, 192) and its mirror (192, 64) tie. Both give 16*6 = 96 thread blocks
  // (u = 96/108) and (ceil(1024/192) + ceil(1024/64) + 1) * 1024^2 * 2 = 23 * 2^21 B of L2 traffic, cost
  // 23 * 2^21 * (108/96)^2 ~ 29.1 * 2^21; e.g. (128, 128) costs 17 * (108/64)^2 ~ 48.4, (32, 192) 39 *
  // (216/192)^2 ~ 49.4, (64, 256) 21 * (108/64)^2 ~ 59.8 (units of 2^21). Only a strictly smaller cost
  // replaces the best, so tm = 64 (met first, tm being the outer loop) wins.
  GpuTile t = gpuOptimalTile(makeOp(GpuOpKind::Fc, 1024, 1024, 1024, 1), GpuSystem{});
  EXPECT_EQ(t.l1M, 64);
  EXPECT_EQ(t.l1N, 192);
}

TEST(LlmGpuOps, DecodeAttentionScore) {
  // 32 heads of q[1x128] * K^T[128x2048]. Matmul: 32 thread blocks whatever the tile, u = 32/108, so the
  // L1 search minimises traffic: tm = 1, tn = 512 makes ceil(2048/tn) = 4 smallest -> (1, 512); L2 (1, 2048).
  // Off-chip = (1*128 + 2048*128 + 2048)*2*32 = 16916480 B (K, q and the scores).
  GpuSystem sys;
  GpuOpCost c = gpuOpCost(makeOp(GpuOpKind::Matmul, 1, 2048, 128, 32), sys);
  EXPECT_EQ(c.tile, (GpuTile{1, 512, 32, 1, 2048, 2.0}));
  EXPECT_EQ(c.offchipBytes, 16916480);
  expectRel(c.time_s, 16916480.0 * 108 / (kBw * 32));  // 20.0 us
  expectRel(c.time_s, 2.0038298469745894e-05);
  EXPECT_FALSE(c.computeBound);
}

TEST(LlmGpuOps, SoftmaxRooflineOnItsSizes) {
  // 32 heads x 2048 scores, FP16: 262144 B in and out, 5 FLOPs each; u = 32/108 from 32 thread blocks.
  GpuOpCost c = gpuOpCost(makeOp(GpuOpKind::Softmax, 1, 2048, 1, 32), GpuSystem{});
  EXPECT_EQ(c.offchipBytes, 262144);
  EXPECT_EQ(c.regBytes, 262144);
  expectRel(c.time_s, 262144.0 * 108 / (kBw * 32));
  expectRel(c.computeTime_s, 5.0 * 65536 * 108 / (kFlopRate * 32));
  EXPECT_EQ(c.tile, GpuTile{});  // no tile search for element-wise ops
}

TEST(LlmGpuOps, ActAndNormFits) {
  GpuSystem sys;
  const double scale = 1555e9 / 3352e9;  // the fits were measured at 1555 GB/s
  // GELU over 20480 FP16 values: 40960 B in + 40960 out; 4.47e-7 us/B scaled + 8.29 us = 8.307 us.
  GpuOpCost gelu = gpuOpCost(makeOp(GpuOpKind::Act, 1, 20480, 1, 1), sys);
  expectRel(gelu.time_s, (4.47e-7 * scale * 81920 + 8.29) * 1e-6);
  expectRel(gelu.time_s, 8.30698728019093e-06);
  EXPECT_FALSE(gelu.computeBound);
  // GLU reads a second input: 3 x 27648 B.
  GpuOpCost glu = gpuOpCost(makeOp(GpuOpKind::Act, 1, 13824, 1, 1, 2, ActKind::Glu), sys);
  expectRel(glu.time_s, (4.47e-7 * scale * 82944 + 8.29) * 1e-6);
  // LayerNorm over 5120 values: input, residual, output = 30720 B; 1.6e-6 us/B scaled + 6.87 us.
  GpuOpCost norm = gpuOpCost(makeOp(GpuOpKind::Norm, 1, 5120, 1, 1), sys);
  expectRel(norm.time_s, (1.6e-6 * scale * 30720 + 6.87) * 1e-6);
  expectRel(norm.time_s, 6.892801718377088e-06);
  // Compute uses one thread block (numOp = 1, u = 1/108), as the source does: a prefill GELU over 512 x 20480
  // values takes 8*512*20480*108/kFlopRate = 36.3 us, above the fit's 17.0 us, so it is compute-bound.
  GpuOpCost big = gpuOpCost(makeOp(GpuOpKind::Act, 512, 20480, 1, 1), sys);
  expectRel(big.time_s, 8.0 * 512 * 20480 * 108 / kFlopRate);
  EXPECT_TRUE(big.computeBound);
  // FP8: twice the FLOP rate and half the bytes.
  GpuOpCost big8 = gpuOpCost(makeOp(GpuOpKind::Act, 512, 20480, 1, 1, 1), sys);
  expectRel(big8.time_s, 8.0 * 512 * 20480 * 108 / (kFlopRate * 2));
  expectRel(big8.memoryTime_s, (4.47e-7 * scale * 512 * 20480 * 2 + 8.29) * 1e-6);
}

TEST(LlmGpuOps, AllReduce) {
  // GPT-3 13B hidden 5120, batch 1, FP16: 10240 B of partial sums per GPU.
  auto op = makeOp(GpuOpKind::AllReduce, 1, 5120, 1, 1);
  GpuSystem one;
  GpuOpCost c1 = gpuOpCost(op, one);
  EXPECT_EQ(c1.time_s, 0);          // nothing to exchange on one GPU
  EXPECT_EQ(c1.energy_pJ.comm, 0);  // nor any energy (the source charges num_xpu * traffic)
  GpuSystem eight;
  eight.gpus = 8;
  GpuOpCost c8 = gpuOpCost(op, eight);
  // 7 steps of 10240/8 = 1280 B: max(6060 + 0.009*1280 ns, 1280 B / 300 GB/s) = 6071.52 ns -> 42.50064 us.
  expectRel(c8.time_s, 7 * 6071.52e-9);
  expectRel(c8.energy_pJ.comm, 8 * 10240 * 10.4);
  EXPECT_EQ(c8.commBytes, 10240);
  EXPECT_EQ(c8.energy_pJ.total(), c8.energy_pJ.comm);
}

TEST(LlmGpuOps, Link) {
  // 10240 B one way at 600/2 GB/s = 34.13 ns; 8 PIM devices each receive their copy: 8*10240*10.4 pJ.
  GpuSystem sys;
  GpuOpCost c = linkCost(10240, sys, 8);
  expectRel(c.time_s, 10240 / 300e9);
  expectRel(c.energy_pJ.comm, 8 * 10240 * 10.4);
  EXPECT_EQ(linkCost(0, sys, 8).time_s, 0);
  // The GPU side's X2G op: m*n*numOp*dbyte bytes, energy for each of the gpus.
  sys.gpus = 4;
  GpuOpCost op = gpuOpCost(makeOp(GpuOpKind::Link, 1, 5120, 1, 1), sys);
  expectRel(op.time_s, 10240 / 300e9);
  expectRel(op.energy_pJ.comm, 4 * 10240 * 10.4);
  EXPECT_THROW(linkCost(-1, sys, 1), std::invalid_argument);
  EXPECT_THROW(linkCost(1, sys, 0), std::invalid_argument);
}

TEST(LlmGpuOps, FiniteL2BandwidthJoinsTheMemoryTime) {
  // The small FC moves 590848 B from L2 into L1; at 1 GB/s of L2 that is 590.8 us, the slowest term.
  GpuSystem sys;
  sys.l2Bandwidth = 1e9;
  expectRel(gpuOpCost(makeOp(GpuOpKind::Fc, 1, 512, 512, 1), sys).time_s, 590848e-9);
}

TEST(LlmGpuOps, FastTileSearchEqualsTheLiteralLoops) {
  // Odd sizes, FP8 and FP16, and small L2 capacities so that capacity binds, down to none fitting (only
  // the exempt L1 tile then).
  const std::int64_t dims[] = {1, 7, 100, 513, 1000, 4099};
  const double l2Sizes[] = {40.0 * 1024 * 1024, 1 << 20, 50000, 100};
  int checked = 0;
  for (double l2 : l2Sizes)
    for (std::int64_t m : dims)
      for (std::int64_t n : dims)
        for (std::int64_t k : {1, 300, 8192})
          for (GpuOpKind kind : {GpuOpKind::Fc, GpuOpKind::Matmul}) {
            GpuSystem sys;
            sys.l2Bytes = l2;
            auto op = makeOp(kind, m, n, k, kind == GpuOpKind::Fc ? 1 : 3, (m + n) % 2 ? 1 : 2);
            ASSERT_EQ(gpuOptimalTile(op, sys), detail::gpuTileSearchLiteral(op, sys))
                << "m=" << m << " n=" << n << " k=" << k << " l2=" << l2;
            ++checked;
          }
  EXPECT_EQ(checked, 4 * 6 * 6 * 3 * 2);
  // With 100 B of L2 nothing fits, so the L2 tile is the L1 tile.
  GpuSystem tiny;
  tiny.l2Bytes = 100;
  GpuTile t = gpuOptimalTile(makeOp(GpuOpKind::Fc, 1000, 1000, 8192, 1), tiny);
  EXPECT_EQ(t.l2M, t.l1M);
  EXPECT_EQ(t.l2N, t.l1N);
}

TEST(LlmGpuOps, MemoIsStableAcrossCallsAndThreads) {
  GpuSystem sys;
  auto op = makeOp(GpuOpKind::Fc, 32768, 6144, 12288, 1);  // a prefill FC not asked elsewhere
  const std::size_t before = detail::gpuTileMemoSize();
  GpuOpCost a, b;
  std::thread t1([&] { a = gpuOpCost(op, sys); });
  std::thread t2([&] { b = gpuOpCost(op, sys); });
  t1.join();
  t2.join();
  EXPECT_EQ(detail::gpuTileMemoSize(), before + 1);
  GpuOpCost c = gpuOpCost(op, sys);
  EXPECT_EQ(detail::gpuTileMemoSize(), before + 1);
  EXPECT_EQ(a.tile, b.tile);
  EXPECT_EQ(a.tile, c.tile);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.time_s, c.time_s);
  EXPECT_EQ(a.energy_pJ.total(), c.energy_pJ.total());
  EXPECT_EQ(c.tile, detail::gpuTileSearchLiteral(op, sys));
  // A Matmul of the same shape has its own entry (its thread blocks, hence its L1 tile, differ).
  auto mm = op;
  mm.kind = GpuOpKind::Matmul;
  gpuOptimalTile(mm, sys);
  EXPECT_EQ(detail::gpuTileMemoSize(), before + 2);
}

TEST(LlmGpuOps, RejectsBadInput) {
  GpuSystem sys;
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Fc, 0, 1, 1, 1), sys), std::invalid_argument);
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Fc, 1, -1, 1, 1), sys), std::invalid_argument);
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Matmul, 1, 1, 0, 1), sys), std::invalid_argument);
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Softmax, 1, 1, 1, 0), sys), std::invalid_argument);
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Fc, 1, 1, 1, 1, 4), sys), std::invalid_argument);
  EXPECT_THROW(gpuOpFlops(makeOp(GpuOpKind::Fc, 1, 1, 1, 1, 0)), std::invalid_argument);
  EXPECT_THROW(gpuOptimalTile(makeOp(GpuOpKind::Norm, 1, 1, 1, 1), sys), std::invalid_argument);
  GpuSystem noGpu;
  noGpu.gpus = 0;
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Fc, 1, 1, 1, 1), noGpu), std::invalid_argument);
  // m*n*k = 2^62 multiply-adds: the byte counts (up to 3*2*2^62) would wrap 64 bits. 2^60 still fits:
  // traffic <= 3*2*2^60 < 2^63.
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Fc, 1 << 30, 1 << 30, 1 << 2, 1), sys), InputError);
  EXPECT_THROW(gpuOpCost(makeOp(GpuOpKind::Act, 1 << 30, 1 << 30, 1, 1 << 2), sys), InputError);
  EXPECT_NO_THROW(gpuOpCost(makeOp(GpuOpKind::Matmul, 1 << 17, 1 << 16, 1 << 16, 1 << 11), sys));
}

}  // namespace
}  // namespace pim::llm
