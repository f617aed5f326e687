// SPDX-License-Identifier: Apache-2.0
// A read-only memory map of a whole file. Shipped models are 8-35 MB: mapping them shares the page cache's
// pages instead of faulting in and filling a private copy (on the 2-core VM a first touch costs about 12 µs
// per 4 KB page, so a read into fresh memory took 0.1 s for the attacc model).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace pim {

class MappedFile {
 public:
  /// Throws InputError naming the file when it cannot be opened, is empty or cannot be mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::uint8_t> bytes() const { return {m_data, m_size}; }

 private:
  const std::uint8_t* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace pim
