// SPDX-License-Identifier: Apache-2.0
// Overflow-checked integer arithmetic for sizes, extents, bounds, ids and counts computed from input. Signed
// overflow is undefined behaviour, and a wrapped size is worse than a crash: a 2^40-cubed GEMM "simulated"
// in 44 cycles on 0 banks. Every helper throws InputError naming what was computed, so the message says which
// expression and which shape overflowed instead of printing a wrapped number later.
#pragma once
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "engine/common/error.h"

namespace pim {

/// a * b, or InputError "<what>: <a> * <b> overflows (above <max>)". `what` names the expression and where
/// its operands came from ("kernel gemm: tensor 'A' elements m*k under shape m=...").
template <std::integral T>
T checkedMul(T a, T b, std::string_view what) {
  T r{};
  if (__builtin_mul_overflow(a, b, &r)) {
    throw InputError(std::string(what) + ": " + std::to_string(a) + " * " + std::to_string(b) +
                     " overflows (above " + std::to_string(std::numeric_limits<T>::max()) + ")");
  }
  return r;
}

/// a + b, or InputError "<what>: <a> + <b> overflows ...".
template <std::integral T>
T checkedAdd(T a, T b, std::string_view what) {
  T r{};
  if (__builtin_add_overflow(a, b, &r)) {
    throw InputError(std::string(what) + ": " + std::to_string(a) + " + " + std::to_string(b) +
                     " overflows (outside " + std::to_string(std::numeric_limits<T>::min()) + ".." +
                     std::to_string(std::numeric_limits<T>::max()) + ")");
  }
  return r;
}

/// `v` as a To, or InputError "<what>: <v> is outside <min>..<max>" (a range check before narrowing).
template <std::integral To, std::integral From>
To checkedNarrow(From v, std::string_view what) {
  To r{};
  if (__builtin_add_overflow(v, From{0}, &r)) {
    throw InputError(std::string(what) + ": " + std::to_string(v) + " is outside " +
                     std::to_string(std::numeric_limits<To>::min()) + ".." +
                     std::to_string(std::numeric_limits<To>::max()));
  }
  return r;
}

}  // namespace pim
