// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: a network compiled on a small crossbar accelerator, HT and LL, against the MVM invariant
// (what it runs: fuzz_inputs.h). Any bytes are either read or refused with an InputError; anything else
// (another exception, a crash, a hang, a leak, a sanitizer report) is a finding (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)pim::fuzz::crossbar(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
