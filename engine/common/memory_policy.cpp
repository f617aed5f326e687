// SPDX-License-Identifier: Apache-2.0
#include "engine/common/memory_policy.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pim {

void keepFreedMemory() {
#if defined(__GLIBC__)
  // Either call also turns off glibc's dynamic thresholds, which start at 128 KB and rise only after an
  // mmapped block is freed, so they never settle for the per-evaluation vectors.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kOwnMappingBytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kKeptFreeBytes));
#endif
}

}  // namespace pim
