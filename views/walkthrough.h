// SPDX-License-Identifier: Apache-2.0
// The classroom walkthrough's content: DCC's data-centric pipeline, one step per stage, every number taken
// from the engine (DraftSpace, Pruner, mapDraft, placeOnBanks, evaluateDraft). Kept apart from the dialog so
// tests can compare each step's numbers with the engine without going through widgets.
#pragma once
#include <QImage>
#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/problem.h"

namespace pimgui {

struct WalkthroughStep {
  QString title;
  QString explanation;                           // one short paragraph: what this stage does and why
  QString body;                                  // HTML (tables) with the engine's numbers
  std::map<std::string, std::uint64_t> numbers;  // the counts shown, by name, for tests
  QImage picture;                                // drawn above the body (views/walkthrough_pictures.h)
  std::map<std::string, std::uint64_t> drawn;    // what the picture drew, for tests
};

/// Kept drafts evaluated to pick the draft a library walkthrough follows (the best of them by total time).
inline constexpr std::size_t kWalkthroughCandidates = 64;

/// DCC section 4.2's example (datasets/kernels/dcc_example.pim, n=12,m=3,p=16 on 2 groups x 4 cores, SIMD
/// 16), following the paper's draft 7; the bank layout places draft 7 on hbm-pim and the timeline simulates
/// gemv b=1,out=256,in=256 on hbm-pim, since the example itself has no backend. Throws InputError.
std::vector<WalkthroughStep> exampleWalkthrough();

/// A library kernel on a backend; follows `draft` or, without one, the best of the first
/// kWalkthroughCandidates kept drafts. Throws InputError.
std::vector<WalkthroughStep> problemWalkthrough(std::shared_ptr<const pim::Problem> problem,
                                                std::optional<std::uint64_t> draft = std::nullopt);

/// The best of the first `limit` kept drafts of `p` by simulated time (nullopt when none simulates).
std::optional<pim::Draft> bestOfFirstKept(const pim::Problem& p, std::size_t limit);

}  // namespace pimgui
