// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/compare.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

#include "engine/common/error.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

std::string fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

namespace {

bool isFloat(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64; }

/// The type of every tensor of `k`, nullopt when they differ.
std::optional<DType> uniformType(const Kernel& k) {
  if (k.tensors.empty()) return std::nullopt;
  for (const Tensor& t : k.tensors)
    if (t.dtype != k.tensors.front().dtype) return std::nullopt;
  return k.tensors.front().dtype;
}

/// The type `b` lists nearest to `t`: of the same kind (float or integer), the narrowest at least as wide,
/// else the widest narrower one; nullopt when `b` lists none of that kind.
std::optional<DType> nearestType(const Backend& b, DType t) {
  std::optional<DType> wider, narrower;
  for (DType c : b.core.dtypes) {
    if (isFloat(c) != isFloat(t)) continue;
    if (dtypeBytes(c) >= dtypeBytes(t)) {
      if (!wider || dtypeBytes(c) < dtypeBytes(*wider)) wider = c;
    } else if (!narrower || dtypeBytes(c) > dtypeBytes(*narrower)) {
      narrower = c;
    }
  }
  return wider ? wider : narrower;
}

}  // namespace

Kernel compareKernel(const Backend& b, const Kernel& k, bool* retypedOut) {
  bool dummy = false;
  bool& retypedTo = retypedOut ? *retypedOut : dummy;
  retypedTo = false;
  const auto t = uniformType(k);
  const ITarget& target = targetOf(b);
  if (!t || target.check(b, k).empty() ||
      std::find(b.core.dtypes.begin(), b.core.dtypes.end(), *t) != b.core.dtypes.end())
    return k;
  const auto near = nearestType(b, *t);
  if (!near) return k;
  Kernel r = retyped(k, *near);
  if (!target.check(b, r).empty()) return k;
  retypedTo = true;
  return r;
}

BestDraft findBestDraft(const Problem& p, const BestDraftOptions& o) {
  BestDraft out;
  if (std::string why = unsupportedReason(p.backend(), p.kernel()); !why.empty()) {
    out.reason = std::move(why);
    return out;
  }
  std::optional<Predictor> model;
  try {
    model = Predictor::loadShipped(p.backend().name);
  } catch (const InputError& e) {
    out.warning = e.what();  // a corrupt model falls back to the exhaustive sample
  }
  ExploreOptions eo;
  eo.eval = o.eval;
  eo.topK = o.topK;
  eo.strategy = model ? "predictor" : "exhaustive";
  eo.maxSimulations = model ? 0 : o.maxSimulations;
  eo.predictor = model ? &*model : nullptr;
  out.strategy = eo.strategy;
  Explorer ex(p, eo);
  const std::atomic<bool> never{false};
  ex.run(o.cancel ? *o.cancel : never, o.onProgress);
  out.record = ex.best();
  if (out.record && !out.record->simulated) out.record.reset();
  if (!out.record) {
    out.reason = "no draft could be simulated";
    for (const auto& r : ex.records()) {
      if (!r.error.empty()) {
        out.reason += ": " + r.error;
        break;
      }
    }
    if (ex.progress().remaining == 0) out.reason = "every draft was pruned";
  } else if (model && out.record->draft.id != UINT64_MAX) {
    out.record->predictedNs = model->predictNs(p, std::vector{out.record->draft})[0];
  }
  return out;
}

std::string backendCountError(const CompareOptions& o) {
  const std::size_t least = o.baseline == "gpu" ? 1 : 2;
  if (o.backends.size() >= least && o.backends.size() <= 4) return {};
  return "--backends: give 2 to 4 backends to compare, or 1 against --baseline gpu; got " +
         std::to_string(o.backends.size()) + (o.backends.empty() ? "" : " (" + joined(o.backends) + ")");
}

Comparison compareBackends(const Kernel& k, const std::string& dims, const CompareOptions& o) {
  if (const std::string why = backendCountError(o); !why.empty()) throw InputError(why);
  std::set<std::string> seen;
  for (const auto& name : o.backends) {
    if (!seen.insert(name).second) throw InputError("--backends: '" + name + "' is listed twice");
    builtinBackends().get(name);  // throws listing the known names
  }
  if (o.baseline != "gpu" && !seen.count(o.baseline)) {
    throw InputError("--baseline: '" + o.baseline + "' is neither gpu nor one of the compared backends (" +
                     joined(o.backends) + ")");
  }
  const Shape shape = parseShape(k, dims);

  Comparison c;
  c.kernel = k.name;
  c.shape = shapeString(k, shape);
  c.resident = residentNames(k, o.residency.value_or(Residency::declared(k)));
  c.baseline = o.baseline;
  auto backendOf = [&](const std::string& name) -> const Backend& {
    for (const Backend& b : o.edited)
      if (b.name == name) return b;
    return builtinBackends().get(name);
  };
  std::vector<std::unique_ptr<Problem>> problems;
  for (const auto& name : o.backends) {
    BestDraftOptions search = o.search;
    if (o.onProgress) {
      CompareProgress at{problems.size(), o.backends.size(), name, {}};
      search.onProgress = [&o, at](const ExploreProgress& p) mutable {
        at.search = p;
        o.onProgress(at);
      };
    }
    BackendResult r;
    r.backend = name;
    std::unique_ptr<Problem> p;
    try {
      const Kernel run = compareKernel(backendOf(name), k, &r.retyped);
      const auto t = uniformType(run);
      r.elementType = t ? std::string(dtypeName(*t)) : "mixed";
      // A family that places nothing ahead of a call runs with every tensor streamed (residencyOn).
      p = std::make_unique<Problem>(
          backendOf(name), run, shape,
          residencyOn(backendOf(name), run, o.residency.value_or(Residency::declared(run))));
    } catch (const InputError& e) {
      r.reason = e.what();
    }
    if (p) {
      const BestDraft best = findBestDraft(*p, search);
      r.strategy = best.strategy;
      if (best.record) {
        r.available = true;
        r.draft = best.record->draft;
        r.draftLabel = targetOf(p->backend()).candidates(*p)->label(best.record->draft);
        for (int i = 0; i < p->space().partCount() && i < static_cast<int>(r.draft->parts.size()); ++i) {
          r.partLabels.push_back(mappingLabel(
              k, p->space().representative(i, best.record->draft.parts[static_cast<std::size_t>(i)])));
        }
        r.eval = *best.record->simulated;
      } else {
        r.reason = best.reason;
      }
    }
    problems.push_back(std::move(p));
    c.results.push_back(std::move(r));
  }

  // The pinned baseline.
  std::string baselineName;
  if (o.baseline == "gpu") {
    const auto any =
        std::find_if(problems.begin(), problems.end(), [](const auto& p) { return p != nullptr; });
    if (any == problems.end()) throw InputError(k.name + "[" + c.shape + "]: " + c.results.front().reason);
    // The GPU a backend sits beside (UPMEM's DIMMs sit beside a CPU, so the first backend may have none).
    Baseline g = gpuBaseline(**any);
    for (const auto& p : problems)
      if (p && !g.available) g = gpuBaseline(*p);
    if (!g.available)
      throw InputError("--baseline gpu: no compared backend sits beside a GPU (" + g.reason + ")");
    c.baselineNs = g.eval.timeNs;
    c.baselineSummary = g.summary;
    baselineName = "the GPU";
  } else {
    const auto it = std::find_if(c.results.begin(), c.results.end(),
                                 [&](const BackendResult& r) { return r.backend == o.baseline; });
    if (!it->available)
      throw InputError("--baseline " + o.baseline + ": " + k.name + " cannot run there: " + it->reason);
    c.baselineNs = it->eval.timeNs;
    c.baselineSummary = "best draft " + std::to_string(it->draft->id) + " " + it->draftLabel;
    baselineName = o.baseline;
  }
  for (auto& r : c.results) {
    if (r.available && r.eval.timeNs > 0) r.speedup = c.baselineNs / r.eval.timeNs;
  }
  std::stable_sort(c.results.begin(), c.results.end(), [](const BackendResult& a, const BackendResult& b) {
    if (a.speedup.has_value() != b.speedup.has_value()) return a.speedup.has_value();
    return a.speedup && *a.speedup > *b.speedup;
  });

  // Verdict: the fastest backend other than the baseline itself.
  const BackendResult* best = nullptr;
  for (const auto& r : c.results) {
    if (r.speedup && r.backend != o.baseline) {
      best = &r;
      break;
    }
  }
  auto scheduleOf = [](const BackendResult& r) {
    return "draft " + std::to_string(r.draft->id) + " " + r.draftLabel;
  };
  const std::string keep = o.baseline == "gpu" ? "keep it on the GPU" : "keep it on " + o.baseline;
  if (!best) {
    c.verdict = keep + ": no other compared backend can run " + k.name + " at " + c.shape;
  } else if (*best->speedup > 1.0) {
    c.verdict = "offload to " + best->backend + " with schedule " + scheduleOf(*best) + ", " +
                fixed2(*best->speedup) + "x faster than " + baselineName;
  } else {
    c.verdict = keep + ": the fastest alternative, " + best->backend + " with schedule " + scheduleOf(*best) +
                ", is " + fixed2(1.0 / *best->speedup) + "x slower";
  }
  return c;
}

}  // namespace pim
