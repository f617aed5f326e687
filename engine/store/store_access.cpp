// SPDX-License-Identifier: Apache-2.0
#include "engine/store/store_access.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "engine/common/error.h"

namespace pim {

// A store is written to (results, labels, picks) and SQLite creates its -wal and -shm files beside it: a
// read-only store or folder is refused before anything runs, with the reason, instead of "integrity check:
// unable to open database file" (folder) or a failed write after the work (file). Other errors (a missing
// folder) are left to SQLite's open, which names them.
void requireWritableStore(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string folder = p.has_parent_path() ? p.parent_path().string() : ".";
  // The reason a file or folder cannot be written ("Permission denied", ...), empty when it can or when the
  // failure is not about writing.
  auto readOnly = [](const std::string& f) -> std::string {
    if (::access(f.c_str(), W_OK) == 0) return {};
    const int err = errno;
    return err == EACCES || err == EPERM || err == EROFS ? std::strerror(err) : std::string();
  };
  if (const std::string why = readOnly(folder); !why.empty())
    throw InputError(path + ": its folder " + folder + " is read-only (" + why +
                     "): a results store is written to, with SQLite's -wal and -shm files beside it");
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return;
  if (const std::string why = readOnly(path); !why.empty())
    throw InputError(path + ": is read-only (" + why +
                     "): a results store is written to; give a writable copy");
}

}  // namespace pim
