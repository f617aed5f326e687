// SPDX-License-Identifier: Apache-2.0
#pragma once
// What one operation costs a DPU tasklet in pipeline instructions (upmem.md, "Per-operation cost"): CoMoNM's
// measured single-tasklet cycles (CoMoNM code, Simulation.h, kStaticLatency) divided by the 11-cycle
// same-tasklet gap, rounded to the nearest instruction. An emulated operation (anything but 32-bit integer
// arithmetic) is that many instructions, each using an issue slot; the 32-bit multiply is the __mulsi3 call,
// 7 instructions plus one mul_step per significant bit of the smaller operand.
#include <array>
#include <cmath>
#include <cstdint>

namespace pim::sim::dpu {

enum class DpuOp : std::uint8_t { Load, Store, Add, Sub, Mul, Div };
enum class DpuType : std::uint8_t { Int8or16, Int32, Int64, Float, Double };

/// CoMoNM's table in cycles of one tasklet, [op][type]; the 32-bit multiply (0 here) depends on its operand.
inline constexpr std::array<std::array<double, 5>, 6> kSingleTaskletCycles = {{
    {11, 10, 10, 11, 11},          // LOAD (WRAM)
    {11, 10, 11, 11, 11},          // STORE (WRAM)
    {22, 10, 11, 683, 1002},       // ADD
    {22, 10, 11, 517, 672},        // SUB
    {11, 0, 1421, 1939, 7195},     // MUL
    {110, 99, 518, 11306, 23526},  // DIV
}};

/// Instructions of one operation; `mulOperandBits` is the significant bits of the smaller operand of a
/// 32-bit multiply (4.03 on average for PrIM's GEMV values in [0, 50), 31 for full-width operands).
inline std::int64_t instructionsOf(DpuOp op, DpuType type, int mulOperandBits = 31) {
  if (op == DpuOp::Mul && type == DpuType::Int32) return 7 + std::max(1, mulOperandBits);
  const double cycles = kSingleTaskletCycles[static_cast<std::size_t>(op)][static_cast<std::size_t>(type)];
  return std::max<std::int64_t>(1, std::llround(cycles / 11));
}

}  // namespace pim::sim::dpu
