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

int bottleneckStage(const std::vector<StageTiming>& stages) {
  int bottleneck = -1;
  std::int64_t worst = -1;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].subCycles.empty()) continue;
    std::int64_t sum = 0;
    for (const std::int64_t c : stages[i].subCycles) sum += c;
    if (sum > worst) worst = sum, bottleneck = static_cast<int>(i);
  }
  return bottleneck;
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
