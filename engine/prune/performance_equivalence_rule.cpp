// SPDX-License-Identifier: Apache-2.0
#include "engine/prune/prune_rule.h"

namespace pim {
namespace {

// Within a group the slowest core sets the pace, and DCC estimates a core by its partition of the
// representative dimension. Two parts with the same number of groups and the same worst partition are
// execution-performance equivalent (rule 3). DCC writes round(extent / (groups * cores)); the worst core's
// partition is the ceiling, which agrees with DCC's example (round(12/8) = ceil(12/8) = 2) and is exact
// when the division is uneven.
class PerformanceEquivalenceRule final : public IPruneRule {
 public:
  int number() const override { return 3; }
  std::string_view name() const override { return "performance-equivalence"; }
  std::string_view summary() const override {
    return "same groups and same worst per-core partition in every part as an earlier draft";
  }
  bool hasKey() const override { return true; }
  std::uint64_t key(const DraftSpace& space, int part, const PartChoice& c) const override {
    return (static_cast<std::uint64_t>(c.groups) << 44) ^
           static_cast<std::uint64_t>(space.perCoreSize(part, c));
  }
  std::string reason(const DraftSpace& space, int part, const PartChoice& c,
                     const PartChoice* twin) const override {
    std::string why = "part " + std::to_string(part) + ": " + std::to_string(c.groups) +
                      " groups with worst per-core partition " + std::to_string(space.perCoreSize(part, c));
    if (twin) {
      why += ", the same as [" + std::to_string(twin->groups) + ", " + std::to_string(twin->cores) + ", " +
             mappingLabel(space.kernel(), space.representative(part, *twin)) + "]";
    }
    return why;
  }
};

}  // namespace

std::unique_ptr<IPruneRule> makePerformanceEquivalenceRule() {
  return std::make_unique<PerformanceEquivalenceRule>();
}

}  // namespace pim
