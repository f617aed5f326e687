// SPDX-License-Identifier: Apache-2.0
// The kernel DSL: a small text form of the kernel IR. Grammar in docs/dsl.md.
#pragma once
#include <cstddef>
#include <string_view>

#include "engine/kernel/kernel.h"

namespace pim {

/// Deepest nesting of one expression: parentheses, unary signs and calls, and the depth of a value
/// expression's tree (a chain of operators). Library kernels nest at most 4 levels (docs/knobs.md).
inline constexpr int kMaxDslNesting = 256;

/// Most tokens in one kernel text: 65,536 (library kernels have at most 249). The text is lexed whole before
/// it is parsed, at about 100 bytes per token: without a bound a 16 MiB file of short tokens took 1.7 GB and
/// 16 s before its first error (docs/knobs.md).
inline constexpr std::size_t kMaxDslTokens = std::size_t{1} << 16;

/// Parses one kernel. `origin` names the text in messages (a file path or "<library:gemv>").
/// Throws InputError "origin:LINE:COL: what is wrong" on any error; never returns a half-built kernel.
Kernel parseKernel(std::string_view text, std::string_view origin);
/// Reads (readInputFile: a regular file of at most 16 MiB) and parses a DSL file; a missing, unreadable or
/// non-regular file is an InputError naming the path.
Kernel loadKernelFile(const std::string& path);

}  // namespace pim
