// SPDX-License-Identifier: Apache-2.0
#include "views/draft_row.h"

namespace pimgui {

QString objectiveTitle(Objective o, const QString& unitName) {
  switch (o) {
    case Objective::SimulatedTime:
      return QStringLiteral("Simulated time (µs)");
    case Objective::PredictedTime:
      return QStringLiteral("Predicted time (µs)");
    case Objective::Energy:
      return QStringLiteral("Energy (µJ)");
    case Objective::ComputeTime:
      return QStringLiteral("Compute time (µs)");
    case Objective::RearrangementTime:
      return QStringLiteral("Rearrangement time (µs)");
    case Objective::UnitsUsed: {
      QString title = unitName + QStringLiteral("s used");
      if (!title.isEmpty()) title[0] = title[0].toUpper();
      return title;
    }
  }
  return {};
}

std::optional<double> objectiveValue(const DraftRow& row, Objective o) {
  if (o == Objective::PredictedTime) {
    if (row.predictedNs) return *row.predictedNs / 1e3;
    return std::nullopt;
  }
  if (o == Objective::UnitsUsed && !row.simulated && row.unitsUsed) return *row.unitsUsed;
  if (!row.simulated) return std::nullopt;
  const pim::Evaluation& e = *row.simulated;
  switch (o) {
    case Objective::SimulatedTime:
      return e.timeNs / 1e3;
    case Objective::Energy:
      return e.energyPj / 1e6;
    case Objective::ComputeTime:
      return e.ns(1) / 1e3;
    case Objective::RearrangementTime:
      return (e.ns(0) + e.ns(2)) / 1e3;
    case Objective::UnitsUsed:
      return e.unitsUsed;
    default:
      return std::nullopt;
  }
}

}  // namespace pimgui
