// SPDX-License-Identifier: Apache-2.0
// GPU-only execution on the host a PIM family sits beside: attacc.md's A100 model, analytic.
#pragma once
#include <optional>
#include <string>

#include "engine/target/target.h"
#include "sim/gpu_model.h"

namespace pim {

/// The GPU a backend declares as its host, or nullopt when it declares none. A backend describes the GPU
/// beside it by its GPU energies (energy.GPU_OFFCHIP_BYTE, GPU_L2_BYTE, GPU_L1_BYTE, GPU_REG_BYTE, GPU_MAC):
/// then the model's peak bandwidth is system.hostBandwidthGBps, its FP16 peak system.hostTflops and its
/// energies those figures (hbm-pim and attacc, whose PIM stacks are the A100's memory). A backend without
/// them (hbm2-pim, gddr6-aim: their host fields describe another host) is compared against attacc.md's
/// reference A100 (sim::GpuParams as published), and its host fields feed no GPU figure.
std::optional<sim::GpuParams> declaredHostGpu(const Backend& b);

/// Why system.hostBandwidthGBps / system.hostTflops of `b` do not feed the GPU baseline ("" when they do).
std::string hostGpuUnreadReason(const Backend& b);

/// The A100 beside AttAcc and DCC's HBM-PIM (attacc.md): decode attention and GEMV by its kernels, anything
/// else as memory-bound (inputs read and outputs written once). The peaks and energies are the backend's
/// declared host GPU (declaredHostGpu) where it declares one, else the reference A100; unavailable, with
/// the reason, when the declared host has no bandwidth or no FP16 throughput (0).
Baseline a100Baseline(const Problem& p);

}  // namespace pim
