// SPDX-License-Identifier: Apache-2.0
#include "engine/prune/prune_rule.h"

namespace pim {
namespace {

// Two candidates of one dimension set in the same rule-1 class use the same mapping function on dimensions of
// the same extent, so [g, c, either] produces identical data partitions. The first candidate of each class is
// the one kept; its index is found by scanning, which is cheap (sets hold a handful of candidates).
int canonicalCandidate(const DimensionSet& ds, int rep) {
  const int cls = ds.candidates[rep].equivalenceClass;
  for (int r = 0;; ++r) {
    if (ds.candidates[r].equivalenceClass == cls) return r;
  }
}

class RedundantRule final : public IPruneRule {
 public:
  int number() const override { return 1; }
  std::string_view name() const override { return "redundant"; }
  std::string_view summary() const override {
    return "same data tiles and equivalent representative mappings in every part";
  }
  bool keeps(const DraftSpace& space, int part, const PartChoice& c) const override {
    return canonicalCandidate(space.sets().sets[part], c.rep) == c.rep;
  }
  std::optional<PartChoice> twinOf(const DraftSpace& space, int part, const PartChoice& c) const override {
    PartChoice t = c;
    t.rep = canonicalCandidate(space.sets().sets[part], c.rep);
    return t;
  }
  std::string reason(const DraftSpace& space, int part, const PartChoice& c,
                     const PartChoice* twin) const override {
    const auto& k = space.kernel();
    const auto& mine = space.representative(part, c);
    std::string why = "part " + std::to_string(part) + ": " + mappingLabel(k, mine);
    if (twin) why += " partitions exactly like " + mappingLabel(k, space.representative(part, *twin));
    return why + " (same function " + mine.fn.str(k.loopVarNames()) + ", same extent " +
           std::to_string(mine.extent) + ", same " + std::to_string(c.groups) + " groups x " +
           std::to_string(c.cores) + " cores)";
  }
};

}  // namespace

std::unique_ptr<IPruneRule> makeRedundantRule() { return std::make_unique<RedundantRule>(); }

}  // namespace pim
