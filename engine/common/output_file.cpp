// SPDX-License-Identifier: Apache-2.0
#include "engine/common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "engine/common/error.h"

namespace pim {
namespace {

std::string errnoText(int err) { return std::strerror(err); }

/// What is at `path` when it is there and not a regular file ("a directory", ...); empty otherwise. lstat:
/// a symbolic link is reported as one, not followed.
std::string notARegularFile(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISLNK(st.st_mode)) return "a symbolic link (give the file it points to)";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

/// A fresh, unpredictable name beside `path` (createTemporaryBeside says which).
std::string temporaryPathBeside(const std::string& path) {
  static thread_local std::random_device rd;
  const std::size_t slash = path.rfind('/');
  const std::size_t nameAt = slash == std::string::npos ? 0 : slash + 1;
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".tmp.%d.%08x%08x", static_cast<int>(getpid()), rd(), rd());
  // At most 64 characters of the target's name: a valid name of up to 255 bytes still leaves room.
  return path.substr(0, nameAt) + "." + path.substr(nameAt, 64) + suffix;
}

/// Creates an empty temporary file beside `path` exclusively (not guessable in advance, so nobody can plant
/// a link there, and O_EXCL refuses anything that is there anyway); returns its descriptor and name, or -1
/// and errno set.
int createTemporary(const std::string& path, std::string& tmp) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    tmp = temporaryPathBeside(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

std::string createTemporaryBeside(const std::string& path) {
  std::string tmp;
  const int fd = createTemporary(path, tmp);
  if (fd < 0) throw InputError(path + ": cannot write: " + errnoText(errno));
  ::close(fd);
  return tmp;
}

void requireWritableOutput(const std::string& path, std::string_view what) {
  const std::string name = std::string(what) + " " + path;
  if (path.empty()) throw InputError(std::string(what) + ": the output path is empty");
  if (const std::string kind = notARegularFile(path); !kind.empty())
    throw InputError(name + ": is " + kind + ", not a file PIMScope may replace");
  std::string tmp;
  const int fd = createTemporary(path, tmp);
  if (fd < 0) throw InputError(name + ": cannot write there: " + errnoText(errno));
  ::close(fd);
  ::unlink(tmp.c_str());
}

void writeFileAtomically(const std::string& path, std::string_view content) {
  if (path.empty()) throw InputError("output path is empty");
  if (const std::string kind = notARegularFile(path); !kind.empty())
    throw InputError(path + ": is " + kind + ", not a file PIMScope may replace");
  std::string tmp;
  const int fd = createTemporary(path, tmp);
  if (fd < 0) throw InputError(path + ": cannot write: " + errnoText(errno));
  auto failWith = [&](int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot write: " + errnoText(err));
  };
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      failWith(errno);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) failWith(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot write: " + errnoText(err));
  }
  // Again just before the rename: something may have appeared at the path while the file was written.
  if (const std::string kind = notARegularFile(path); !kind.empty()) {
    ::unlink(tmp.c_str());
    throw InputError(path + ": is " + kind + ", not a file PIMScope may replace");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot replace: " + errnoText(err));
  }
}

}  // namespace pim
