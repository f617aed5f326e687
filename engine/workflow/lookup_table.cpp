// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/lookup_table.h"

#include "engine/common/error.h"
#include "engine/kernel/kernel.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"

namespace pim {

std::string lookupBackendKey(const Backend& b) {
  return b.hash() + "/t" + std::to_string(targetOf(b).modelVersion());
}

std::optional<DraftRecord> verifiedLookup(const Problem& p, ResultsStore& store, const ExploreOptions& eo,
                                          std::string* ignored) {
  const auto hit = store.lookup(lookupBackendKey(p.backend()), computationHash(p.kernel()), p.storeKey());
  if (!hit) return std::nullopt;
  const std::string draft = "draft " + std::to_string(hit->draftId);
  auto ignore = [&](const std::string& why) -> std::optional<DraftRecord> {
    if (ignored) *ignored = store.path() + ": lookup entry for " + p.title() + " ignored: " + why;
    return std::nullopt;
  };
  const auto space = targetOf(p.backend()).candidates(p, eo.rules);
  // A family with kernel-level choices addresses each draft at every combination (a pick of imtp or of
  // the predictor at other choices).
  if (hit->draftId < 0 || static_cast<std::uint64_t>(hit->draftId) >= space->addressable())
    return ignore(draft + " is not in its space of " + std::to_string(space->addressable()) + " candidates");
  const auto id = static_cast<std::uint64_t>(hit->draftId);
  if (const Verdict v = space->why(id); !v.kept)
    return ignore(draft + " is pruned (rule " + std::to_string(v.rule) + ", " + v.ruleName + ")");
  DraftRecord r;
  r.draft = space->candidate(id);
  try {
    r.simulated = std::make_shared<const Evaluation>(evaluateDraft(p, r.draft, eo.eval));
  } catch (const InputError& e) {
    return ignore(draft + " cannot run: " + e.what());
  }
  return r;
}

void recordLookup(ResultsStore& store, const Problem& p, const DraftRecord& best, const std::string& source) {
  store.putLookup({lookupBackendKey(p.backend()), computationHash(p.kernel()), p.kernel().name, p.storeKey(),
                   static_cast<std::int64_t>(best.draft.id), best.simulated->timeNs, std::nullopt, source});
}

}  // namespace pim
