// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the backend JSON loader (depth-limited JSON reader, then validation against the schema of
// the family the file names, with the built-in targets). Any text either loads or is refused with an
// InputError; anything else is a finding (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/common/error.h"
#include "engine/target/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const pim::Backend b = pim::parseBackend(text, "fuzz.json");
    (void)b.hash();
    (void)b.toJson();
  } catch (const pim::InputError&) {
  }
  return 0;
}
