// SPDX-License-Identifier: Apache-2.0
// Writing a user's output file (an export, a trained model) without trusting what the path names: renaming
// over a device node, a FIFO or a directory would destroy it, a symbolic link planted at a fixed temporary
// name would be written through, and a read-only folder found only after an hour of training loses the work.
#pragma once
#include <string>
#include <string_view>

namespace pim {

/// Throws InputError "<what> <path>: ..." unless `path` can take a new file now: its folder exists and
/// accepts one (checked by creating and removing a temporary file, so a read-only disk or folder is refused
/// before long work starts) and whatever is at `path` is a regular file ("is a directory", "is a device",
/// "is a FIFO", "is a symbolic link", ...). `what` names the role: "--out", "model folder".
void requireWritableOutput(const std::string& path, std::string_view what);

/// Creates an empty file beside `path` exclusively (O_CREAT | O_EXCL | O_NOFOLLOW) and returns its name:
/// "." + at most 64 characters of `path`'s name + ".tmp.<pid>.<64 random bits>", unpredictable and short
/// enough for any valid name of `path`. For writers that fill the file themselves (SQLite, whose
/// SQLITE_OPEN_EXCLUSIVE is a no-op for sqlite3_open_v2). Throws InputError naming `path`.
std::string createTemporaryBeside(const std::string& path);

/// Writes `content` to `path` atomically: a temporary file created exclusively (O_CREAT | O_EXCL, an
/// unpredictable name) beside `path`, flushed to disk, then renamed over `path`, which must be absent or a
/// regular file (checked again just before the rename). On any failure the temporary file is removed, an
/// existing `path` is left untouched, and InputError names the path and the reason.
void writeFileAtomically(const std::string& path, std::string_view content);

}  // namespace pim
