// SPDX-License-Identifier: Apache-2.0
// The prune-rule registry: a rule registered in a test (no other change) is applied, counted and explained by
// the pruner and counted by the explorer; names and numbers stay unique.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>

#include "engine/common/error.h"
#include "engine/prune/pruner.h"
#include "engine/search/explorer.h"
#include "tests/test_util.h"

namespace pim {
namespace {

// A rule DCC does not have: at most two PIM groups per part. Small spaces still lose drafts to it after
// rules 1-3, so its count is not trivially zero.
class AtMostTwoGroupsRule final : public IPruneRule {
 public:
  int number() const override { return 4; }
  std::string_view name() const override { return "test-at-most-two-groups"; }
  std::string_view summary() const override { return "a part uses at most two groups"; }
  bool keeps(const DraftSpace&, int, const PartChoice& c) const override { return c.groups <= 2; }
  std::string reason(const DraftSpace&, int part, const PartChoice& c, const PartChoice*) const override {
    return "part " + std::to_string(part) + " uses " + std::to_string(c.groups) + " groups";
  }
};

PruneRuleRegistry builtinPlusFourth() {
  PruneRuleRegistry r;
  registerBuiltinPruneRules(r);
  r.add(std::make_unique<AtMostTwoGroupsRule>());
  return r;
}

// Consumers used to hold the counts in std::array<..., 3>: a fourth rule was applied but its count dropped
// (the explorer copied "r < 3" of them).
TEST(PruneRules, FourthRuleRegisteredInATestIsCountedEverywhere) {
  const auto p = test::problem("gddr6-aim", "red", "b=1,n=2048");
  const PruneRuleRegistry rules = builtinPlusFourth();
  const Pruner pruner(p->space(), {}, rules);
  const PruneCounts counts = pruner.counts();
  ASSERT_EQ(counts.rules.size(), 4u);
  EXPECT_EQ(counts.rules[3].number, 4);
  EXPECT_EQ(counts.rules[3].name, "test-at-most-two-groups");
  EXPECT_TRUE(counts.rules[3].inForce);
  EXPECT_GT(counts.rules[3].removed, 0u);
  const std::uint64_t removed =
      std::accumulate(counts.rules.begin(), counts.rules.end(), std::uint64_t{0},
                      [](std::uint64_t s, const RuleCount& r) { return s + r.removed; });
  EXPECT_EQ(counts.generated - removed, counts.remaining);
  // Fewer kept drafts than with the built-in rules alone, and none of them breaks the new rule.
  EXPECT_LT(counts.remaining, Pruner(p->space()).counts().remaining);
  std::uint64_t kept = 0;
  pruner.forEachKept([&](const Draft& d) {
    ++kept;
    for (const PartChoice& c : d.parts) EXPECT_LE(c.groups, 2) << d.id;
    return true;
  });
  EXPECT_EQ(kept, counts.remaining);
  // "Why" names the new rule for a draft only it removes.
  bool explained = false;
  Pruner(p->space()).forEachKept([&](const Draft& d) {
    const Verdict v = pruner.why(d.id);
    if (v.kept) return true;
    EXPECT_EQ(v.rule, 4);
    EXPECT_EQ(v.ruleName, "test-at-most-two-groups");
    explained = true;
    return false;
  });
  EXPECT_TRUE(explained);

  ExploreOptions o;
  o.strategy = "exhaustive";
  o.maxSimulations = 4;
  o.pruneRules = &rules;
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  ex.run(never);
  const ExploreProgress prog = ex.progress();
  ASSERT_EQ(prog.pruned.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(prog.pruned[i], counts.rules[i]) << i;
  EXPECT_EQ(prog.remaining, counts.remaining);
  EXPECT_EQ(ex.records().size(), counts.remaining);
  // Switching the fourth rule off by position keeps the built-in result.
  o.rules = {true, true, true, false};
  Explorer off(*p, o);
  off.run(never);
  EXPECT_EQ(off.progress().pruned[3].removed, 0u);
  EXPECT_EQ(off.progress().remaining, Pruner(p->space()).counts().remaining);
}

TEST(PruneRules, RegistryRefusesADuplicateNameOrNumber) {
  PruneRuleRegistry r = builtinPlusFourth();
  EXPECT_THROW(r.add(std::make_unique<AtMostTwoGroupsRule>()), InputError);
  EXPECT_THROW(r.add(makeRedundantRule()), InputError);
  EXPECT_EQ(r.size(), 4u);
  EXPECT_EQ(r.find("test-at-most-two-groups"), std::optional<std::size_t>(3));
  EXPECT_FALSE(r.find("no-such-rule"));
}

}  // namespace
}  // namespace pim
