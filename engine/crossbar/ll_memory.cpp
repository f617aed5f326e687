// SPDX-License-Identifier: Apache-2.0
// The LL scheduler's local memory (../shared/specs/crossbar.md, "Scheduling", LL: "Local memory is managed
// per pixel by a heap allocator"; tcad VII-B, Fig. 9 C.1/C.2; pimcomp-nn MemoryManager.cpp): first fit over
// each core's address range, so fragmentation decides what fits exactly as in PIMCOMP-NN.
#include <algorithm>
#include <stdexcept>

#include "engine/common/error.h"
#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {

LocalMemory::LocalMemory(std::int64_t cores, std::int64_t capacity)
    : m_capacity(capacity), m_free(cores), m_used(cores, 0), m_peak(cores, 0), m_peakBefore(cores, 0) {
  if (capacity <= 0) throw InputError("LL schedule: local memory must hold at least one element");
  for (auto& gaps : m_free) gaps.emplace(0, capacity);
}

std::int64_t LocalMemory::tryAllocate(std::int64_t core, std::int64_t elements) {
  auto& gaps = m_free[core];
  for (auto it = gaps.begin(); it != gaps.end(); ++it) {
    if (it->second < elements) continue;
    const std::int64_t start = it->first, rest = it->second - elements;
    gaps.erase(it);
    if (rest > 0) gaps.emplace(start + elements, rest);
    m_used[core] += elements;
    m_peak[core] = std::max(m_peak[core], m_used[core]);
    return start;
  }
  return -1;
}

std::int64_t LocalMemory::allocate(std::int64_t core, std::int64_t elements, const std::string& what) {
  const std::int64_t address = tryAllocate(core, elements);
  if (address >= 0) return address;
  throw InputError("LL schedule, IG " + std::to_string(m_group) + ": core " + std::to_string(core) +
                   "'s local memory (" + std::to_string(m_capacity) + " elements, " +
                   std::to_string(m_used[core]) + " in use) has no " + std::to_string(elements) +
                   " contiguous elements free for " + what);
}

std::int64_t LocalMemory::largestGapAfter(std::int64_t core, std::int64_t elements) const {
  std::int64_t longest = -1;
  bool taken = false;  // first fit takes the lowest gap that is long enough
  for (const auto& [start, length] : m_free[core]) {
    const bool chosen = !taken && length >= elements;
    taken = taken || chosen;
    longest = std::max(longest, chosen ? length - elements : length);
  }
  return taken ? longest : -1;
}

void LocalMemory::release(std::int64_t core, std::int64_t address, std::int64_t elements) {
  auto& gaps = m_free[core];
  auto next = gaps.lower_bound(address);
  if ((next != gaps.end() && next->first < address + elements) ||
      (next != gaps.begin() && std::prev(next)->first + std::prev(next)->second > address))
    throw std::logic_error("LL schedule: releasing local memory that is not held");
  std::int64_t start = address, length = elements;
  if (next != gaps.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == address) {
      start = prev->first;
      length += prev->second;
      gaps.erase(prev);
    }
  }
  if (next != gaps.end() && next->first == address + elements) {
    length += next->second;
    gaps.erase(next);
  }
  gaps.emplace(start, length);
  m_used[core] -= elements;
}

}  // namespace pim::crossbar::ll
