// SPDX-License-Identifier: Apache-2.0
#include "engine/prune/prune_rule.h"

namespace pim {
namespace {

// A d-way SIMD core only uses its full local bandwidth when its share of the SIMD dimension set is a multiple
// of d (DCC rule 2). The rule speculatively removes the others, and steps aside when no draft could pass.
class SimdAlignmentRule final : public IPruneRule {
 public:
  int number() const override { return 2; }
  std::string_view name() const override { return "simd-alignment"; }
  std::string_view summary() const override {
    return "per-core size along the SIMD dimension set is not a multiple of the SIMD width d";
  }
  bool inForce(const DraftSpace& space) const override {
    const int d = space.resources().simdLanes;
    const int s = space.sets().simdSet;
    if (d <= 1 || s < 0) return false;
    // Any part can be given any g <= k and c <= m (earlier parts taking 1), so scan those.
    const auto& ds = space.sets().sets[s];
    for (int rep = 0; rep < static_cast<int>(ds.candidates.size()); ++rep) {
      for (int g = 1; g <= space.resources().groups; ++g) {
        for (int c = 1; c <= space.resources().coresPerGroup; ++c) {
          if (space.perCoreSize(s, {g, c, rep}) % d == 0) return true;
        }
      }
    }
    return false;
  }
  bool keeps(const DraftSpace& space, int part, const PartChoice& c) const override {
    return part != space.sets().simdSet || space.perCoreSize(part, c) % space.resources().simdLanes == 0;
  }
  std::string reason(const DraftSpace& space, int part, const PartChoice& c,
                     const PartChoice*) const override {
    const auto& rep = space.representative(part, c);
    return "part " + std::to_string(part) + ": each core gets " + std::to_string(space.perCoreSize(part, c)) +
           " elements of " + mappingLabel(space.kernel(), rep) + " (" + std::to_string(rep.extent) + " / (" +
           std::to_string(c.groups) + " x " + std::to_string(c.cores) + ")), not a multiple of the " +
           std::to_string(space.resources().simdLanes) + "-way SIMD width";
  }
};

}  // namespace

std::unique_ptr<IPruneRule> makeSimdAlignmentRule() { return std::make_unique<SimdAlignmentRule>(); }

}  // namespace pim
