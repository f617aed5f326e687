// SPDX-License-Identifier: Apache-2.0
// One row of the drafts table: what the engine knows about a draft (an Explorer record), or why it was
// pruned. The plot objectives are read from here too so the table and the Pareto plot can never disagree.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <QString>

#include "engine/search/explorer.h"

namespace pimgui {

struct DraftRow {
  pim::Draft draft;
  std::optional<double> predictedNs;
  std::shared_ptr<const pim::Evaluation> simulated;  // shared with the Explorer record
  /// Units holding data from the target's placement of the draft (ITarget::place), for rows without a
  /// simulation (pruned drafts with a prediction); a simulated row reads Evaluation::unitsUsed, the same
  /// count.
  std::optional<int> unitsUsed;
  std::string error;
  bool pruned = false;
  int rule = 0;  // pruning rule number when pruned
  std::string ruleName, reason;

  static DraftRow fromRecord(const pim::DraftRecord& r) {
    DraftRow row;
    row.draft = r.draft;
    row.predictedNs = r.predictedNs;
    row.simulated = r.simulated;
    row.error = r.error;
    return row;
  }
};

/// Quantities the Pareto plot can put on an axis (all to be minimised).
enum class Objective : int {
  SimulatedTime,
  PredictedTime,
  Energy,
  ComputeTime,
  RearrangementTime,
  UnitsUsed
};
inline constexpr int kObjectiveCount = 6;
/// With units, e.g. "Simulated time (µs)"; `unitName` is the target's inner unit ("bank", "core"), for
/// UnitsUsed ("Banks used").
QString objectiveTitle(Objective o, const QString& unitName);
/// Value of `o` for `row` in the axis units, nullopt when the engine has not produced it.
std::optional<double> objectiveValue(const DraftRow& row, Objective o);

}  // namespace pimgui
