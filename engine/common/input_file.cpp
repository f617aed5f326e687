// SPDX-License-Identifier: Apache-2.0
#include "engine/common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/common/error.h"

namespace pim {
namespace {

[[noreturn]] void refuse(const std::string& path, std::string_view problem) {
  throw InputError(path + ": " + std::string(problem));
}

// What a non-regular file is, for "is a directory, not a kernel file".
std::string_view kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "is a socket";
  return "is not a regular file";
}

std::string limitText(std::uintmax_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

void checkMode(const std::string& path, std::string_view what, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) refuse(path, std::string(kindOf(st.st_mode)) + ", not a " + std::string(what));
}

void checkSize(const std::string& path, std::string_view what, std::uintmax_t size, std::uintmax_t maxBytes) {
  if (size > maxBytes)
    refuse(path, "is " + std::to_string(size) + " bytes, above the limit of " + limitText(maxBytes) +
                     " for a " + std::string(what));
}

// Closes the descriptor on every path out of readInputFile.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void requireRegularFile(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    refuse(path, "cannot open " + std::string(what) + ": " + std::strerror(errno));
  checkMode(path, what, st);
}

std::string readInputFile(const std::string& path, std::string_view what, std::uintmax_t maxBytes) {
  requireRegularFile(path, what);
  // O_NONBLOCK: should the path be swapped for a FIFO after the check, open returns instead of waiting for a
  // writer; fstat below then refuses it.
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (f.fd < 0) refuse(path, "cannot open " + std::string(what) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) refuse(path, "cannot read " + std::string(what) + ": " + std::strerror(errno));
  checkMode(path, what, st);
  checkSize(path, what, static_cast<std::uintmax_t>(st.st_size), maxBytes);
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t used = 0;
  // The file may grow while it is read: read until end of file, but never past the limit.
  for (;;) {
    if (used == text.size()) {
      if (text.size() > maxBytes) checkSize(path, what, text.size(), maxBytes);
      text.resize(used + 4096);
    }
    const ssize_t n = ::read(f.fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(path, "cannot read " + std::string(what) + ": " + std::strerror(errno));
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  text.resize(used);
  checkSize(path, what, used, maxBytes);
  return text;
}

}  // namespace pim
