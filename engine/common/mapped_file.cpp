// SPDX-License-Identifier: Apache-2.0
#include "engine/common/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/common/error.h"
#include "engine/common/input_file.h"

namespace pim {

MappedFile::MappedFile(const std::string& path) {
  // A FIFO would block open() and a device has no size to map: refuse both before opening.
  requireRegularFile(path, "regular file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    ::close(fd);
    throw InputError(path + ": empty or unreadable");
  }
  // MAP_POPULATE maps every page at once: the file is read whole right after.
  void* p =
      ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw InputError(path + ": cannot map: " + std::strerror(err));
  m_data = static_cast<const std::uint8_t*>(p);
  m_size = static_cast<std::size_t>(st.st_size);
}

MappedFile::~MappedFile() {
  if (m_data != nullptr) ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
}

}  // namespace pim
