// SPDX-License-Identifier: Apache-2.0
#include "views/draft_row.h"

namespace pimgui {

const char* objectiveTitle(Objective o) {
  switch (o) {
    case Objective::SimulatedTime:
      return "Simulated time (µs)";
    case Objective::PredictedTime:
      return "Predicted time (µs)";
    case Objective::Energy:
      return "Energy (µJ)";
    case Objective::ComputeTime:
      return "Compute time (µs)";
    case Objective::RearrangementTime:
      return "Rearrangement time (µs)";
    case Objective::BanksUsed:
      return "Banks used";
  }
  return "";
}

std::optional<double> objectiveValue(const DraftRow& row, Objective o) {
  if (o == Objective::PredictedTime) {
    if (row.predictedNs) return *row.predictedNs / 1e3;
    return std::nullopt;
  }
  if (o == Objective::BanksUsed && !row.simulated && row.banksUsed) return *row.banksUsed;
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
    case Objective::BanksUsed:
      return e.banksUsed;
    default:
      return std::nullopt;
  }
}

}  // namespace pimgui
