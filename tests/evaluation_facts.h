// SPDX-License-Identifier: Apache-2.0
// An evaluation's named fact, for the tests that read a target's facts.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "engine/core/evaluation.h"

namespace pim::test {

/// The fact named `key`; a test failure and -1 when the evaluation has none.
inline double fact(const Evaluation& e, const std::string& key) {
  for (const auto& [k, v] : e.facts)
    if (k == key) return v;
  ADD_FAILURE() << "no fact " << key;
  return -1;
}

}  // namespace pim::test
