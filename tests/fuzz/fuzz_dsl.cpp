// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the kernel DSL parser. Any text either parses or is refused with an InputError; any other
// exception, a crash, a hang, a leak or a sanitizer report is a finding (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)pim::parseKernel(text, "fuzz.pim");
  } catch (const pim::InputError&) {
  }
  return 0;
}
