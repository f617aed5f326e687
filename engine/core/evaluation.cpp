// SPDX-License-Identifier: Apache-2.0
#include "engine/core/evaluation.h"

namespace pim {

std::string_view provenanceName(Provenance p) {
  switch (p) {
    case Provenance::Simulated:
      return "simulated";
    case Provenance::Predicted:
      return "predicted";
    case Provenance::Analytic:
      return "analytic";
  }
  return "?";
}

std::string_view labelModelName(LabelModel m) {
  switch (m) {
    case LabelModel::PimScope:
      return "pimscope";
    case LabelModel::DccKernel:
      return "dcc-kernel";
    case LabelModel::DccInference:
      return "dcc-inference";
  }
  return "?";
}

std::optional<LabelModel> parseLabelModel(std::string_view name) {
  for (LabelModel m : {LabelModel::PimScope, LabelModel::DccKernel, LabelModel::DccInference})
    if (labelModelName(m) == name) return m;
  return std::nullopt;
}

void lowerIncumbent(std::atomic<std::int64_t>& incumbent, const Evaluation& e) {
  if (!e.lowerBound) lowerIncumbent(incumbent, e.totalCycles);
}

void lowerIncumbent(std::atomic<std::int64_t>& incumbent, std::int64_t cycles) {
  for (std::int64_t seen = incumbent.load(); seen == 0 || cycles < seen;) {
    if (incumbent.compare_exchange_weak(seen, cycles)) break;
  }
}

}  // namespace pim
