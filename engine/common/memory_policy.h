// SPDX-License-Identifier: Apache-2.0
// How a PIMScope process keeps the heap memory it frees. Each evaluation allocates and frees per-unit vectors
// of 100 KB and more (2,048 DPUs' statistics, a channel's command lists); with glibc's defaults the freed top
// of the heap goes back to the kernel every time and the next evaluation faults it in again, page by page
// (half of a full-system UPMEM evaluation's time on this VM, README "Limitations"). The executables call this
// first.
#pragma once
#include <cstddef>

namespace pim {

/// Freed memory stays in the process up to this much at the top of the heap (per arena).
inline constexpr std::size_t kKeptFreeBytes = std::size_t{64} << 20;
/// Allocations from this size up are mapped on their own (glibc's largest dynamic threshold).
inline constexpr std::size_t kOwnMappingBytes = std::size_t{32} << 20;

/// Sets the allocator's trim and mmap thresholds to the two figures above (glibc; elsewhere nothing). Call
/// before any thread starts.
void keepFreedMemory();

}  // namespace pim
