// SPDX-License-Identifier: Apache-2.0
// An NVIDIA A100 (HBM3) running the operators of one transformer decoder layer: the GPU model of AttAcc's
// public simulator (src/devices.py class xPU, src/model.py class Layer, src/config.py), reproduced to its
// arithmetic so that per-token times compare with it. Each GPU runs its tensor-parallel share: an op's
// dimensions are already one GPU's; times are one GPU's, energies are summed over all `gpus` (as the source).
//
// Fc / Matmul: a two-level tile search (L1 per SM, then L2) picks the tiles; off-chip bytes follow from the
// L2 tile, time = max(FLOPs / (peak * eff * u), off-chip bytes / (bw * eff * u)) with u the SM utilisation of
// the L1 tile's thread blocks. Softmax: the same roofline on its tensor sizes. Act / Norm: the source's fits
// to measured A100 kernels. AllReduce: NVLink ring over `gpus`. Link: the GPU <-> PIM transfer (X2G).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>

#include "sim/gpu_model.h"

namespace pim::llm {

enum class GpuOpKind { Fc, Matmul, Softmax, Act, Norm, AllReduce, Link };
/// Activation of an Act op: GELU (8 FLOPs/element), ReLU (1), or a gated unit (SwiGLU / GeGLU: 9 FLOPs per
/// element and a second input of the same size).
enum class ActKind { Gelu, Relu, Glu };

/// An operator as AttAcc's Layer describes it: an m x k by k x n product repeated numOp times (Fc, Matmul),
/// or numOp m x n element-wise tensors (Softmax, Act, Norm) or transfers (AllReduce, Link; k unused but > 0).
struct GpuOp {
  GpuOpKind kind = GpuOpKind::Fc;
  ActKind act = ActKind::Gelu;  // Act only
  std::int64_t m = 1, n = 1, k = 1, numOp = 1;
  int dbyte = 2;  // bytes per element: 2 (FP16), 1 (FP8, twice the FLOP rate)
};

/// The op's tensors in bytes (Layer.get_size): two inputs and the output.
struct GpuOpSizes {
  std::int64_t in1 = 0, in2 = 0, out = 0;
  std::int64_t total() const { return in1 + in2 + out; }
};

/// The A100 system of AttAcc's src/config.py (GPUType.A100a): per-GPU figures and the GPU count.
struct GpuSystem {
  sim::GpuParams gpu;                 // FLOPs, HBM bandwidth, SM count, energy per byte / MAC
  int gpus = 1;                       // tensor-parallel GPUs (the source's NUM_DEVICE)
  double l1BytesPerSm = 192 * 1024;   // L1_CAP_PER_CORE
  double l2Bytes = 40 * 1024 * 1024;  // L2_CAP_PER_DEVICE
  double l2Bandwidth = std::numeric_limits<double>::infinity();  // L2_MEM_BW_PER_DEVICE (inf on A100)
  double linkBw = 600e9;                                         // NVLink3, both directions
  double commPjPerByte = 10.4;                                   // 1.3 pJ/bit
};

/// The tiles the search picked: L1 (per thread block) and L2 (per device); l2K = k / 64 may be fractional.
struct GpuTile {
  std::int64_t l1M = 0, l1N = 0, l1K = 0, l2M = 0, l2N = 0;
  double l2K = 0;
  bool operator==(const GpuTile&) const = default;
};

/// Energy in pJ over all GPUs, split as the source's _get_energy / _io_time_energy.
struct GpuEnergy {
  double offchip = 0, l2 = 0, l1 = 0, reg = 0, alu = 0, comm = 0;
  double total() const { return offchip + l2 + l1 + reg + alu + comm; }
};

struct GpuOpCost {
  double time_s = 0;  // one GPU's execution time (max of compute and memory)
  double computeTime_s = 0, memoryTime_s = 0;
  bool computeBound = false;  // compute time strictly above memory time, as the source's `bound`
  double flops = 0;           // one GPU's
  double offchipBytes = 0, l2Bytes = 0, l1Bytes = 0, regBytes = 0;  // one GPU's traffic per level
  double commBytes = 0;                                             // AllReduce / Link: m*n*numOp*dbyte
  GpuTile tile;                                                     // Fc / Matmul only
  GpuEnergy energy_pJ;
};

/// FLOPs (Layer.get_flops) and tensor sizes (Layer.get_size). Throw std::invalid_argument on a bad op.
std::int64_t gpuOpFlops(const GpuOp& op);
GpuOpSizes gpuOpSizes(const GpuOp& op);

/// The tiles of an Fc or Matmul (xPU._get_optimal_tile), memoised per shape and system (thread-safe).
GpuTile gpuOptimalTile(const GpuOp& op, const GpuSystem& sys);

/// Time, traffic and energy of one op on each of `sys.gpus` GPUs. Link is the GPU side's X2G (one link per
/// GPU); linkCost takes the PIM device count. Throws std::invalid_argument for m, n, k, numOp < 1, dbyte
/// other than 1 or 2, or a bad system; pim::InputError when a byte or FLOP count overflows 64 bits.
GpuOpCost gpuOpCost(const GpuOp& op, const GpuSystem& sys);

/// A transfer of `bytes` between the GPUs and `pimDevices` PIM devices (AttAcc's X2G): time at half the link
/// bandwidth (one direction), energy for every device's copy.
GpuOpCost linkCost(std::int64_t bytes, const GpuSystem& sys, int pimDevices);

namespace detail {
/// The source's tile search as literal nested loops, unmemoised (O(m/l1M * n/l1N)): the reference the fast
/// search in gpuOptimalTile is tested against.
GpuTile gpuTileSearchLiteral(const GpuOp& op, const GpuSystem& sys);
/// Entries in the tile memo (tests).
std::size_t gpuTileMemoSize();
}  // namespace detail

}  // namespace pim::llm
