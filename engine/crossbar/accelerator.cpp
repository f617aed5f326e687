// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/accelerator.h"

#include "engine/common/number_text.h"

namespace pim::crossbar {

std::string describe(const Accelerator& a) {
  return withThousands(a.cores()) + " cores (" + std::to_string(a.coresX) + " x " + std::to_string(a.coresY) +
         ") in " + std::to_string(a.chips) + (a.chips == 1 ? " chip" : " chips") + ", " +
         withThousands(a.crossbarsPerCore) + (a.crossbarsPerCore == 1 ? " array" : " arrays") + " of " +
         std::to_string(a.rows) + " x " + std::to_string(a.cols) +
         " per core: " + withThousands(a.crossbars()) + " arrays";
}

}  // namespace pim::crossbar
