// SPDX-License-Identifier: Apache-2.0
// Conv mappings in the results store (schema v4, docs/store.md): the better row per key.
#include <gtest/gtest.h>

#include "engine/store/store.h"

namespace {

using pim::ResultsStore;
using pim::StoredMapping;

// Conv mappings (schema v4): one row per (hierarchy hash, layer, objective, mapper); a worse result or an
// equal one with a weaker proof never replaces the stored row.
TEST(ResultsStore, MappingsKeepTheBetterRowPerKey) {
  ResultsStore store = ResultsStore::open(":memory:");
  EXPECT_FALSE(store.mapping("h1", "K=8", "latency", "exhaustive"));
  StoredMapping m;
  m.hierarchyHash = "h1";
  m.hierarchy = "pimopt-small";
  m.layerKey = "K=8";
  m.layer = "fc";
  m.objective = "latency";
  m.mapper = "exhaustive";
  m.mappingJson = R"({"levels": []})";
  m.objectiveValue = 100;
  m.latencyCycles = 100;
  m.energyPj = 5.5;
  m.rowActivations = 7;
  m.status = "feasible";
  m.seconds = 1.5;
  EXPECT_TRUE(store.putMapping(m));
  auto worse = m;
  worse.objectiveValue = 120;
  EXPECT_FALSE(store.putMapping(worse));
  auto proven = m;  // same objective, now with a proof
  proven.status = "optimal";
  proven.gap = 0.0;
  proven.bound = 100;
  EXPECT_TRUE(store.putMapping(proven));
  EXPECT_FALSE(store.putMapping(m));  // the same objective without a gap does not replace the proof
  auto better = m;
  better.objectiveValue = 90;
  better.latencyCycles = 90;
  better.mapper = "heuristic";  // another key
  EXPECT_TRUE(store.putMapping(better));
  const auto got = store.mapping("h1", "K=8", "latency", "exhaustive");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, "optimal");
  EXPECT_EQ(got->gap, 0.0);
  EXPECT_EQ(got->bound, 100.0);
  EXPECT_EQ(got->objectiveValue, 100);
  EXPECT_EQ(got->rowActivations, 7);
  EXPECT_EQ(got->energyPj, 5.5);
  EXPECT_EQ(got->mappingJson, m.mappingJson);
  EXPECT_GT(got->createdAt, 0);
  ASSERT_EQ(store.mappings().size(), 2u);
  EXPECT_FALSE(store.mapping("h2", "K=8", "latency", "exhaustive"));  // another hierarchy
}

}  // namespace
