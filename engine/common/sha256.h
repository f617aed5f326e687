// SPDX-License-Identifier: Apache-2.0
// SHA-256 (FIPS 180-4), for keys that hostile input must not be able to collide on purpose: stored results
// are served by the hash of what a kernel computes, so a kernel crafted to share another's key would be
// served the other's pick. FNV-style hashes are fine for caches, not for that.
#pragma once
#include <string>
#include <string_view>

namespace pim {

/// The SHA-256 digest of `data` as 64 lower-case hex digits.
std::string sha256Hex(std::string_view data);

}  // namespace pim
