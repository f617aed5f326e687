// SPDX-License-Identifier: Apache-2.0
// Active learning for the coupled predictor (beyond DCC's fixed 15% sample, docs/sweep.md "Active
// learning"): label a small random seed set of every shape, then, round by round, the drafts an ensemble of
// models is least sure of among those predicted near the best (lowest mean minus spread) with the predicted
// best first, retrain, and stop when no shape's best labelled draft (the pick) improves.
#pragma once
#include <cstddef>
#include <vector>

#include "engine/workflow/training.h"

namespace pim {

struct ActiveOptions {
  double seedFraction = 0.01;  // of each shape's pruned drafts, labelled at random first
  std::size_t minSeed = 16;    // at least this many per shape (all when fewer)
  std::size_t perRound = 8;    // drafts labelled per shape per round
  std::size_t maxRounds = 20;
  std::size_t ensemble = 3;      // models (different splits and seeds) whose spread is the uncertainty
  std::size_t stableRounds = 2;  // stop after this many rounds in a row in which no shape's pick improved
  TrainOptions train;            // store (labels reused and kept), threads, seed, boosting, simulator options
};

struct ActiveRound {
  std::size_t labels = 0;        // labelled drafts so far, over the suite
  std::size_t picksChanged = 0;  // shapes whose best labelled draft improved this round
};

struct ActiveResult {
  Predictor predictor;              // trained on every label the rounds chose
  std::vector<ActiveRound> rounds;  // per round, the labels after its additions
  std::size_t drafts = 0;           // pruned drafts of the suite, the labels' denominator
};

/// Throws InputError when nothing in the suite runs on `b` or the family has no features.
ActiveResult trainActive(const Backend& b, const Suite& suite, const ActiveOptions& o);

}  // namespace pim
