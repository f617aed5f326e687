// SPDX-License-Identifier: Apache-2.0
// The kernel library: named kernels with named dimensions, each defined by its DSL text.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "engine/kernel/kernel.h"

namespace pim {

struct LibraryKernel {
  std::string name;
  std::string summary;  // one line
  std::string dsl;      // full DSL text
};

class KernelLibrary {
 public:
  /// The library with every built-in kernel registered (gemv, red, va, mul, geva, relu, attn, ttv, mmtv,
  /// gemm; PrIM's sel, uni, hst, scan, bs).
  static const KernelLibrary& builtin();
  void add(LibraryKernel k);
  const std::vector<LibraryKernel>& entries() const { return m_entries; }
  /// Parsed kernel; throws InputError listing the known names when `name` is unknown.
  Kernel get(std::string_view name) const;

 private:
  std::vector<LibraryKernel> m_entries;
};

/// The built-in library kernel `k` computes (sameComputation), or "" when it is none of them: schedules
/// written for a library kernel (vendor libraries, GPU models) apply by what a kernel is, not by its name.
std::string libraryKernelOf(const Kernel& k);

/// Fills `lib` with the built-in kernels. The one place a new library kernel is registered.
void registerBuiltinKernels(KernelLibrary& lib);

}  // namespace pim
