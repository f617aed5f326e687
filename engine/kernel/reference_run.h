// SPDX-License-Identifier: Apache-2.0
// The meaning of a kernel, computed the plain way: every statement in order, its loops as written, the
// data-dependent intrinsics (intrinsics.h) as they declare. What every backend's program must compute; the
// functional tests of the kernels check it against implementations written directly (PrIM's kernels in C++).
// For small shapes: it visits every point of every loop nest.
#pragma once
#include <vector>

#include "engine/kernel/kernel.h"

namespace pim {

/// One flat row-major vector of values per tensor of the kernel, in Kernel::tensors order.
using TensorValues = std::vector<std::vector<double>>;

/// Runs `k` at shape `s` on `values`: inputs as given, every other tensor first set to the neutral value of
/// its first writer (0; -infinity for max=). Throws InputError when `values` does not match the tensors'
/// sizes, when an index falls outside its tensor, or for softmax (not computed here).
void runReference(const Kernel& k, const Shape& s, TensorValues& values);

}  // namespace pim
