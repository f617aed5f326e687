// SPDX-License-Identifier: Apache-2.0
// The labels a results store holds for a suite, by natural key: stores built by different runs (one process,
// several ranks, merged shards) compare equal when they hold the same labels, whatever their row ids.
#pragma once
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "engine/core/problem.h"
#include "engine/store/store.h"
#include "engine/workflow/suite.h"

namespace pim::test {

/// (kernel and shape, draft id, options, total cycles, time in ns, energy in pJ)
using Label = std::tuple<std::string, std::int64_t, std::string, std::int64_t, double, double>;

inline std::vector<Label> labelsOf(ResultsStore& store, const Backend& b, const Suite& suite) {
  std::vector<Label> out;
  const auto backendId = store.upsertBackend(b.name, b.hash(), b.toJson());
  for (const auto& [kernel, shapes] : suite.kernels) {
    const Kernel k = suite.kernel(kernel);
    for (const std::string& shape : shapes) {
      const Problem p(suite.backendFor(b, kernel), k, parseShape(k, shape));
      const auto id = store.findProblem(backendId, computationHash(k), p.storeKey());
      if (!id) continue;
      for (const StoredResult& r : store.results(*id))
        out.emplace_back(kernel + " " + shape, r.draftId, r.options, r.totalCycles, r.timeNs, r.energyPj);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pim::test
