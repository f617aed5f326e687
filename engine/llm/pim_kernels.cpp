// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/pim_kernels.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/threads.h"
#include "engine/core/problem.h"
#include "engine/predict/predictor.h"
#include "engine/schedule/parts_text.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/search/explorer.h"
#include "engine/search/strategy.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/lookup_table.h"

namespace pim::llm {

const char* tilingName(Tiling t) { return t == Tiling::Vendor ? "vendor" : "dcc"; }

namespace {

LayoutSignature signatureOf(const Draft& d) {
  LayoutSignature s;
  for (const PartChoice& p : d.parts) s.push_back({p.groups, p.cores, p.rep});
  return s;
}

/// The run of `k` on `b` as every LLM run poses it: the library kernel with its declared residency (a GEMV's
/// weights, attention's K and V stay in the banks), so a lookup row matches `explore --db`'s.
std::unique_ptr<Problem> problemOf(const Backend& b, const PimKernel& k) {
  Kernel kernel = resolveKernel(k.kernel, "");
  Shape shape = parseShape(kernel, k.dims);
  return std::make_unique<Problem>(b, std::move(kernel), std::move(shape));
}

/// The one-time placement of `d`'s resident tensors, from a second simulation with EvalOptions::preload.
double preloadNsOf(const Problem& p, const Draft& d) {
  EvalOptions o;
  o.keepUnitStats = false;
  o.preload = true;
  const Evaluation e = evaluateDraft(p, d, o);
  return e.preloadCycles ? static_cast<double>(*e.preloadCycles) * e.tCKns : 0.0;
}

/// Runs body(i) for i in [0, count) on up to `workers` threads (0: one per hardware thread), the calling
/// thread among them, handing out indices as threads free up; body(i, threadsPerItem) learns how many threads
/// each item may use itself. Stops handing out once `cancel` is set. The first exception a body throws is
/// rethrown here once every thread has stopped.
void forEachShared(std::size_t count, unsigned workers, const std::atomic<bool>* cancel,
                   const std::function<void(std::size_t, unsigned)>& body) {
  const unsigned threads = workerThreads(workers);
  const unsigned n = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, count)));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto work = [&](std::size_t) {
    try {
      for (std::size_t i; (i = next++) < count;) {
        if (cancel && cancel->load()) return;
        body(i, threads / n);
      }
    } catch (...) {
      next = count;  // the others stop at their next item
      std::lock_guard lock(failureMutex);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  startThreads(pool, n - 1, work);
  work(0);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

PimKernelTable::PimKernelTable(Backend backend, PimTableOptions o)
    : m_backend(std::move(backend)), m_options(o) {
  try {
    m_predictor = sharedShippedModel(m_backend).model;
  } catch (const InputError&) {
    m_predictor = nullptr;  // a corrupt model: compilations sample exhaustively instead (compare does too)
  }
}

PimKernelTable::~PimKernelTable() = default;

bool PimKernelTable::holds(const PimKernel& k) const {
  std::lock_guard lock(m_mutex);
  return m_dcc.count(k) != 0;
}

bool PimKernelTable::holdsLayout(const PimKernel& k, const LayoutSignature& layout) const {
  std::lock_guard lock(m_mutex);
  return m_layouts.count({k, layout}) != 0;
}

std::size_t PimKernelTable::size() const {
  std::lock_guard lock(m_mutex);
  return m_dcc.size();
}

PimRun PimKernelTable::run(const PimKernel& k, Tiling t) {
  auto& table = t == Tiling::Vendor ? m_vendor : m_dcc;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = table.find(k); it != table.end()) {
      PimRun hit = it->second;
      if (t == Tiling::Dcc && m_uncharged.erase(k) == 0 && hit.available) {
        hit.source = "lookup table";
        hit.compileSeconds = 0;
      }
      return hit;
    }
  }
  PimRun r = t == Tiling::Vendor ? simulateVendor(k) : compile(k, m_options.threads);
  std::lock_guard lock(m_mutex);
  table.emplace(k, r);
  return r;
}

void PimKernelTable::prepare(const std::vector<PimKernel>& kernels, unsigned workers,
                             const std::atomic<bool>* cancel) {
  std::vector<PimKernel> todo;
  {
    std::lock_guard lock(m_mutex);
    for (const PimKernel& k : kernels)
      if (!m_dcc.count(k) && std::find(todo.begin(), todo.end(), k) == todo.end()) todo.push_back(k);
  }
  // The compilations run side by side; threads no compilation takes simulate its confirmations.
  forEachShared(todo.size(), workers, cancel, [&](std::size_t i, unsigned threads) {
    PimRun r = compile(todo[i], threads);
    std::lock_guard lock(m_mutex);
    if (m_dcc.emplace(todo[i], std::move(r)).second) m_uncharged.insert(todo[i]);
  });
}

void PimKernelTable::prefetchLayouts(const std::vector<PimKernel>& kernels, const LayoutSignature& layout,
                                     unsigned workers, const std::atomic<bool>* cancel) {
  std::vector<PimKernel> todo;
  {
    std::lock_guard lock(m_mutex);
    for (const PimKernel& k : kernels) {
      const auto pick = m_dcc.find(k);
      if (pick == m_dcc.end() || !pick->second.available || pick->second.layout == layout ||
          m_layouts.count({k, layout}) || std::find(todo.begin(), todo.end(), k) != todo.end())
        continue;
      todo.push_back(k);
    }
  }
  forEachShared(todo.size(), workers, cancel, [&](std::size_t i, unsigned) { runLayout(todo[i], layout); });
}

PimRun PimKernelTable::runLayout(const PimKernel& k, const LayoutSignature& layout) {
  const auto key = std::make_pair(k, layout);
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_layouts.find(key); it != m_layouts.end()) return it->second;
  }
  PimRun r;
  r.source = "simulated";
  const auto p = problemOf(m_backend, k);
  try {
    std::vector<PartTriple> parts;
    for (const auto& part : layout) parts.push_back({part[0], part[1], part[2]});
    const Draft d = draftFromParts(p->space(), parts);
    EvalOptions o;
    o.keepUnitStats = false;
    const Evaluation e = evaluateDraft(*p, d, o);
    r.available = true;
    r.ns = e.timeNs;
    r.energyPj = e.energyPj;
    r.schedule = "draft " + std::to_string(d.id) + " " + targetOf(m_backend).candidates(*p)->label(d);
    r.layout = layout;
  } catch (const InputError& e) {
    r.reason = e.what();
  }
  std::lock_guard lock(m_mutex);
  m_layouts.emplace(key, r);
  return r;
}

PimRun PimKernelTable::simulateVendor(const PimKernel& k) const {
  PimRun r;
  r.source = "simulated";
  const auto p = problemOf(m_backend, k);
  EvalOptions o;
  o.keepUnitStats = false;
  o.preload = true;
  const Baseline v = vendorBaseline(*p, o);
  if (!v.available) {
    r.reason = v.reason;
    return r;
  }
  r.available = true;
  r.ns = v.eval.timeNs;
  r.energyPj = v.eval.energyPj;
  r.schedule = "vendor";
  if (v.draft) r.layout = signatureOf(*v.draft);
  if (v.eval.preloadCycles) r.preloadNs = static_cast<double>(*v.eval.preloadCycles) * v.eval.tCKns;
  return r;
}

PimRun PimKernelTable::compile(const PimKernel& k, unsigned threads) {
  const auto t0 = std::chrono::steady_clock::now();
  PimRun r;
  const auto p = problemOf(m_backend, k);
  ExploreOptions eo;
  eo.eval.keepUnitStats = false;
  eo.threads = threads;
  std::optional<DraftRecord> best;
  if (m_options.store) {
    best = verifiedLookup(*p, *m_options.store, eo);
    if (best) r.source = "store";
  }
  if (!best) {
    eo.strategy = m_predictor ? "predictor" : "exhaustive";
    eo.predictor = m_predictor.get();
    eo.topK = m_options.topK;
    eo.maxConfirm = m_options.topK;
    eo.bandErrors = 0;
    eo.boundConfirmations = true;  // only the pick matters here
    eo.predictLimit = m_options.predictLimit;
    eo.listScreenedOnly = true;  // only the pick is kept
    eo.maxSimulations = m_predictor ? 0 : 64;
    const std::atomic<bool> never{false};
    Explorer ex(*p, eo);
    ex.run(m_options.cancel ? *m_options.cancel : never);
    best = ex.best();
    r.source = "compiled";
    if (best && best->simulated && best->draft.id != kNoDraft && m_options.store)
      recordLookup(*m_options.store, *p, *best, m_predictor ? "model" : "simulated");
  }
  if (!best || !best->simulated || best->draft.id == kNoDraft) {
    r.reason = "no draft of " + p->title() + " could be simulated";
    r.compileSeconds = secondsSince(t0);
    return r;
  }
  r.available = true;
  r.ns = best->simulated->timeNs;
  r.energyPj = best->simulated->energyPj;
  r.schedule = "draft " + std::to_string(best->draft.id) + " " +
               targetOf(m_backend).candidates(*p)->label(best->draft);
  r.layout = signatureOf(best->draft);
  r.preloadNs = preloadNsOf(*p, best->draft);
  r.compileSeconds = secondsSince(t0);
  return r;
}

}  // namespace pim::llm
