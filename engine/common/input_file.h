// SPDX-License-Identifier: Apache-2.0
// Reading a user's file whole (kernel, backend, schedule, suite, model metadata) without trusting what the
// path names: a directory, a device such as /dev/zero or a FIFO would otherwise be read until memory runs
// out or block forever, and a huge file would be copied into memory before any check.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace pim {

/// Largest text file read whole: 16 MiB. The largest shipped input (a backend or suite) is a few KB and a
/// schedule file with its embedded backend and kernel about 10 KB, so this only stops runaway inputs
/// (docs/knobs.md).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{16} << 20;

/// Throws InputError "<path>: <what> ..." unless `path` names (through symbolic links) a regular file:
/// "is a directory", "is a device", "is a FIFO", "does not exist". Checked with stat before anything opens
/// the path, so a FIFO is never opened. `what` names the role: "kernel file", "backend file", ...
void requireRegularFile(const std::string& path, std::string_view what);

/// The bytes of the regular file `path`, at most `maxBytes` of them. Throws InputError naming the path and
/// the problem (see requireRegularFile; "is N bytes, above the limit of M for a <what>"; a read error).
std::string readInputFile(const std::string& path, std::string_view what,
                          std::uintmax_t maxBytes = kMaxInputFileBytes);

}  // namespace pim
