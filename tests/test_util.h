// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the engine tests.
#pragma once
#include <memory>
#include <string>

#include "engine/kernel/library.h"
#include "engine/search/problem.h"

namespace pim::test {

/// A library kernel at a shape on a shipped backend.
inline std::unique_ptr<Problem> problem(const std::string& backend, const std::string& kernel,
                                        const std::string& dims) {
  const Kernel k = KernelLibrary::builtin().get(kernel);
  return std::make_unique<Problem>(BackendRegistry::builtin().get(backend), k, parseShape(k, dims));
}

}  // namespace pim::test
