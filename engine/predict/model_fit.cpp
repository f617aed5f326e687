// SPDX-License-Identifier: Apache-2.0
#include "engine/predict/model_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/kernel/library.h"

namespace pim {
namespace {

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

/// The library kernel the model saw that `p`'s kernel computes (by computation, whatever its name), or "".
std::string trainedKernel(const Problem& p, const TrainingMetadata& m) {
  const std::string library = libraryKernelOf(p.kernel());
  return std::find(m.kernels.begin(), m.kernels.end(), library) != m.kernels.end() ? library : "";
}

}  // namespace

std::string ModelFit::text() const { return joined(reasons, "; "); }

ModelFit modelFit(const Problem& p, const TrainingMetadata& m) {
  ModelFit fit;
  const Kernel& k = p.kernel();
  const std::string trained = trainedKernel(p, m);
  if (trained.empty()) {
    fit.kernelUnknown = true;
    const bool named = std::find(m.kernels.begin(), m.kernels.end(), k.name) != m.kernels.end();
    fit.reasons.push_back(named ? "kernel " + k.name + " computes something else than the " + k.name +
                                      " the model was trained on"
                                : "kernel " + k.name + " is not among the model's training kernels (" +
                                      joined(m.kernels, ", ") + ")");
  }
  if (!trained.empty() &&
      !k.tensors.empty()) {  // another element type costs otherwise (UPMEM emulates floats)
    const auto types = m.kernelTypes.find(trained);
    const std::string type(dtypeName(k.tensors.front().dtype));
    if (types != m.kernelTypes.end() &&
        std::find(types->second.begin(), types->second.end(), type) == types->second.end())
      fit.reasons.push_back("kernel " + k.name + " is " + type + "; the model saw it in " +
                            joined(types->second, ", "));
  }
  if (m.backendHash != p.backend().hash())
    fit.reasons.push_back("the model was trained on other parameters of " + p.backend().name);
  const auto ranges = m.shapeRanges.find(trained);
  fit.shapesKnown = ranges != m.shapeRanges.end();
  if (trained.empty() || !fit.shapesKnown) return fit;
  for (std::size_t d = 0; d < k.dims.size(); ++d) {
    const auto range = ranges->second.find(k.dims[d]);
    if (range == ranges->second.end()) continue;
    const std::int64_t v = p.shape().values[d], lo = range->second.first, hi = range->second.second;
    if (v < lo || v > hi) {
      fit.reasons.push_back(k.dims[d] + "=" + std::to_string(v) + " is outside the trained range " +
                            std::to_string(lo) + ".." + std::to_string(hi));
    }
  }
  return fit;
}

void MeasuredError::add(double predictedNs, double simulatedNs) {
  if (!(simulatedNs > 0) || !std::isfinite(predictedNs)) return;
  const double pct = 100.0 * (predictedNs - simulatedNs) / simulatedNs;
  ++confirmations;
  sumPct += pct;
  sumAbsPct += std::abs(pct);
  worstPct = std::max(worstPct, std::abs(pct));
}

double MeasuredError::mapePct() const {
  return confirmations ? sumAbsPct / static_cast<double>(confirmations) : 0;
}

double MeasuredError::biasPct() const {
  return confirmations ? sumPct / static_cast<double>(confirmations) : 0;
}

std::string predictionAccuracyText(const MeasuredError& e,
                                   const std::vector<std::string>& outOfDistribution) {
  auto pct = [](double v, bool sign) {
    char buf[32];
    std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", v);
    return std::string(buf);
  };
  std::string out = e.confirmations == 0
                        ? std::string("error not measured yet (no confirmation)")
                        : "±" + pct(e.mapePct(), false) + " measured on " + std::to_string(e.confirmations) +
                              (e.confirmations == 1 ? " confirmation" : " confirmations") + " (mean " +
                              pct(e.biasPct(), true) + ", worst " + pct(e.worstPct, false) + ")";
  if (!outOfDistribution.empty()) out += "; out of distribution: " + joined(outOfDistribution, "; ");
  return out;
}

}  // namespace pim
