// SPDX-License-Identifier: Apache-2.0
// What a shape must satisfy beyond each dimension being 1..2^40 before any stage computes with it: every
// size computed from it fits (tensor bytes, iterations of a statement), and every index stays inside its
// tensor. Without this an index past its extent (`x[b][i+4096]`) mapped to no bank at all and "simulated" in
// 0 compute cycles, and a 2^40-cubed GEMM wrapped its footprints to 0 banks.
#pragma once
#include <cstdint>

#include "engine/kernel/kernel.h"

namespace pim {

/// Largest tensor PIMScope models: 2^56 bytes (64 PiB, far beyond any PIM system), so that byte counts,
/// rows and bursts derived from it stay far from int64's limit (docs/knobs.md).
inline constexpr std::int64_t kMaxTensorBytes = std::int64_t{1} << 56;
/// Most iterations of one statement's loop nest: 2^60, leaving headroom for per-iteration work.
inline constexpr std::int64_t kMaxStatementIterations = std::int64_t{1} << 60;

/// Throws InputError unless, under `s`, every tensor extent and loop range is non-empty and computed without
/// overflow, every tensor holds at most kMaxTensorBytes, every statement runs at most
/// kMaxStatementIterations iterations, and every index expression stays within [0, extent) over the
/// iterations that run (guards on one loop variable narrow its range; a statement with another kind of guard
/// is not checked, rather than refused wrongly). Messages name the kernel's origin, line and column where the
/// kernel came from DSL text, the tensor, the expression, its values and the extent.
void checkShapeFits(const Kernel& k, const Shape& s);

}  // namespace pim
