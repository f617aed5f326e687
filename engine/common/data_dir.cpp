// SPDX-License-Identifier: Apache-2.0
#include "engine/common/data_dir.h"

#include <cstdlib>

namespace pim {

std::string dataDir() {
  if (const char* env = std::getenv("PIMSCOPE_DATA"); env && *env) return env;
  return PIMSCOPE_DATA_DIR;
}

}  // namespace pim
