// SPDX-License-Identifier: Apache-2.0
// A hardware family defined only in the tests: chips of cores, each core a roofline (a compute peak and a
// local-memory bandwidth), host transfers at the system's bandwidth; analytic. It exists to prove the seam:
// the CLI's JSON, the window's table, breakdown, Pareto plot, heat map, details and compare show it from its
// declarations (ITarget) without a line of code written for it. Its numbers are invented round values.
#pragma once
#include <functional>
#include <vector>

#include "engine/hw/backend.h"

namespace pim::test {

/// Registers the family "roofline-test" and its backend (tests/data/roofline/roofline-test.json) with the
/// process-wide registries, once; returns the backend.
const Backend& registerRooflineFamily();

/// The shipped backends (datasets/backends): the process-wide registry's less those the tests register. One
/// process may run many tests (the sanitize build runs them in shards, tests/run_shard.sh), so a test that
/// means the shipped ones must not see a family an earlier test registered.
std::vector<std::reference_wrapper<const Backend>> shippedBackends();

}  // namespace pim::test
