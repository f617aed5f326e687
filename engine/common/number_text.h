// SPDX-License-Identifier: Apache-2.0
// Numbers as people read them in messages and tables.
#pragma once
#include <cstdint>
#include <string>

namespace pim {

/// 8454 -> "8,454"; -1234567 -> "-1,234,567". Counts are compared with papers' tables, which group digits.
std::string withThousands(std::int64_t v);

/// printf's %.12g: 709.50015625 -> "709.50015625", 1e-7 -> "1e-07"; the digits people compare across runs,
/// without trailing zeros.
std::string compactNumber(double v);

/// (3.14159, 2) -> "3.14": printf's %.*f, whatever the magnitude (1e300 is not cut off).
std::string withDecimals(double v, int decimals);

}  // namespace pim
