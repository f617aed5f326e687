// SPDX-License-Identifier: Apache-2.0
#pragma once
// Samsung HBM2-PIM vendor-library command programs (hbm2-pim.md, "Vendor kernel protocol"). Plain-number
// inputs. The compute phase is what the reference reports; the host loads (weights/inputs) and the read-back
// of results that Hbm2Copies asks for are added as InputRearrangement / OutputRearrangement phases.
#include <cstdint>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::sim {

// Reserved rows of the vendor library (PIMSimulator: ABMR 0x27FF, SBMR 0x2FFF, PIM registers 0x3FFF).
constexpr uint32_t kHbm2AbmrRow = 0x27FF;
constexpr uint32_t kHbm2SbmrRow = 0x2FFF;
constexpr uint32_t kHbm2RegRow = 0x3FFF;
constexpr uint32_t kHbm2ParkRow = 1u << 13;

enum class Hbm2EltOp { Add, Mul, Relu };

/// The host copies a vendor program carries around its compute phase: loading its first and second input
/// (GEMV: the weights; its vector is broadcast inside the compute phase) and reading the result back. A
/// resident tensor is already in place, so its copy is left out.
struct Hbm2Copies {
  bool input0 = false, input1 = false, output = false;
  static Hbm2Copies all() { return {true, true, true}; }
  static Hbm2Copies none() { return {}; }
};

Program hbm2pimGemv(const DeviceConfig& cfg, int channels, int64_t out, int64_t in,
                    Hbm2Copies copies = Hbm2Copies::none());
Program hbm2pimEltwise(const DeviceConfig& cfg, int channels, int64_t n, Hbm2EltOp op,
                       Hbm2Copies copies = Hbm2Copies::none());
inline Program hbm2pimAdd(const DeviceConfig& c, int ch, int64_t n) {
  return hbm2pimEltwise(c, ch, n, Hbm2EltOp::Add);
}
inline Program hbm2pimMul(const DeviceConfig& c, int ch, int64_t n) {
  return hbm2pimEltwise(c, ch, n, Hbm2EltOp::Mul);
}
inline Program hbm2pimRelu(const DeviceConfig& c, int ch, int64_t n) {
  return hbm2pimEltwise(c, ch, n, Hbm2EltOp::Relu);
}

}  // namespace pim::sim
