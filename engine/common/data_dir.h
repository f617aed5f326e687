// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <string>

namespace pim {

/// Directory of shipped data: $PIMSCOPE_DATA if set, else the source tree's datasets/ compiled in.
std::string dataDir();

}  // namespace pim
