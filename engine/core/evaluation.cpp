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
  if (e.lowerBound) return;
  for (std::int64_t seen = incumbent.load(); seen == 0 || e.totalCycles < seen;) {
    if (incumbent.compare_exchange_weak(seen, e.totalCycles)) break;
  }
}

}  // namespace pim
