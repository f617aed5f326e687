// SPDX-License-Identifier: Apache-2.0
#include "views/exploration_session.h"

#include <QMetaObject>
#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>

#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/kernel.h"
#include "engine/predict/predictor.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"
#include "engine/workflow/session_file.h"
#include "views/residency_input.h"

namespace pimgui {

ExplorationSession::ExplorationSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<pim::ExploreProgress>();
}

ExplorationSession::~ExplorationSession() {
  stopAndWait();
  m_tasks.closeAndWait();  // a snapshot copy may still post to `this` (only ours: not the whole pool)
}

pim::ExploreOptions exploreOptionsFor(const SessionConfig& config) {
  pim::ExploreOptions o;
  o.strategy = config.strategy;
  o.rules = config.rules;
  o.eval = config.evalOptions();
  o.eval.keepUnitStats = false;  // records carry no per-bank table; the heat map re-evaluates one draft
  o.maxSimulations = config.maxSimulations;
  // A sampling search (imtp) simulates each of its trials: the cap is its trial count.
  if (config.maxSimulations > 0) o.sampling.trials = config.maxSimulations;
  return o;
}

namespace {

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::shared_ptr<const pim::Problem> makeProblem(const SessionConfig& config) {
  // Problem construction only builds memoised counts (no enumeration), so it is cheap enough here.
  const pim::Backend& backend =
      config.backendOverride ? *config.backendOverride : pim::builtinBackends().get(config.backend);
  if (!config.network.empty())
    return std::make_shared<const pim::Problem>(backend, pim::resolveNetwork(config.network, ""));
  pim::Kernel kernel = pim::resolveKernel(config.kernel, config.kernelFile);
  if (!config.dtype.empty()) {
    const auto t = pim::parseDType(config.dtype);
    if (!t) throw pim::InputError("element type: unknown type '" + config.dtype + "'");
    kernel = pim::retyped(std::move(kernel), *t);
  }
  pim::Shape shape = pim::parseShape(kernel, config.shape);
  // The field is hidden where the family does not read residency (ControlPanel); its text is ignored there.
  pim::Residency residency = pim::residencyOn(backend, kernel, residencyFor(kernel, config.resident));
  return std::make_shared<const pim::Problem>(backend, std::move(kernel), std::move(shape),
                                              std::move(residency));
}

namespace {

QString extrapolationNote(const SessionConfig& config, const pim::Predictor& model) {
  const QString name = QString::fromStdString(config.backend);
  // "As shipped" only when the model does fit the unedited backend (a stale model fits neither).
  const auto& all = pim::builtinBackends().all();
  const bool fitsShipped = std::any_of(all.begin(), all.end(), [&](const pim::Backend& b) {
    return b.name == config.backend && b.hash() == model.metadata().backendHash;
  });
  if (config.backendOverride && fitsShipped) {
    return QStringLiteral(
               "the shipped model was trained on %1 as shipped; predictions for the edited hardware are "
               "extrapolated")
        .arg(name);
  }
  return QStringLiteral(
             "the shipped model of %1 was trained on other parameters; predictions are extrapolated")
      .arg(name);
}
}  // namespace

void ExplorationSession::cancel() {
  if (!m_cancel || m_cancel->load()) return;
  m_cancelledAtNs = nowNs();
  m_cancel->store(true);
  if (!m_running) return;
  // Stop the run for the GUI now instead of waiting for the simulation in flight.
  ++m_generation;
  m_running = false;
  if (m_worker.joinable()) m_retired.push_back(std::move(m_worker));
  pim::ExploreProgress last = m_explorer->progress();
  last.stage = "cancelled";
  deliverProgress(last);
  emit finished(true);
}

std::optional<double> ExplorationSession::cancelLatencyMs() const {
  if (!m_returnedAtNs || m_cancelledAtNs == 0 || m_returnedAtNs->load() == 0) return std::nullopt;
  return static_cast<double>(m_returnedAtNs->load() - m_cancelledAtNs) / 1e6;
}

void ExplorationSession::stopAndWait() {
  cancel();
  if (m_worker.joinable()) m_worker.join();
  for (auto& t : m_retired) t.join();
  m_retired.clear();
  m_running = false;
}

std::vector<pim::DraftRecord> ExplorationSession::records() const {
  if (m_adopted) return *m_adopted;
  return m_explorer ? m_explorer->records() : std::vector<pim::DraftRecord>{};
}

std::uint64_t ExplorationSession::requestSnapshot() {
  if (!m_explorer && !m_adopted) return 0;
  if (m_snapshotPending) {
    m_snapshotAgain = true;
    return m_snapshotTicket + 1;
  }
  m_snapshotPending = true;
  const std::uint64_t ticket = ++m_snapshotTicket;
  const unsigned run = m_runId;
  m_tasks.start([this, run, ticket, explorer = m_explorer, adopted = m_adopted] {
    auto records =
        explorer ? std::make_shared<const std::vector<pim::DraftRecord>>(explorer->records()) : adopted;
    QMetaObject::invokeMethod(
        this,
        [this, run, ticket, records] {
          m_snapshotPending = false;
          if (run == m_runId) emit snapshot(records, ticket);
          if (m_snapshotAgain) {
            m_snapshotAgain = false;
            requestSnapshot();
          }
        },
        Qt::QueuedConnection);
  });
  return ticket;
}

namespace {

// The schedules a run is compared with: the vendor's, the compute-centric two-step choice, GPU-only
// execution and the family's own; each that fails is kept, unavailable, with the reason. The vendor's is one
// simulation and the GPU's an analytic model, cheap next to the search; the caller skips all of them on
// cancel so Cancel stays prompt, and a cancel during the compute-centric search stops it.
std::vector<pim::Baseline> baselinesOf(const pim::Problem& p, const pim::EvalOptions& eval,
                                       const std::atomic<bool>& cancel) {
  std::vector<pim::Baseline> baselines;
  auto guarded = [&](const char* name, const std::function<std::vector<pim::Baseline>()>& make) {
    try {
      for (pim::Baseline& b : make()) baselines.push_back(std::move(b));
    } catch (const std::exception& e) {
      pim::Baseline b;
      b.name = name;
      b.reason = e.what();
      baselines.push_back(std::move(b));
    }
  };
  guarded("vendor", [&] { return std::vector<pim::Baseline>{pim::vendorBaseline(p, eval)}; });
  // The compute-centric two-step choice (DCC Fig. 2 and 13): a cost-model screen, compute-only runs, then
  // the rearrangement of the few it keeps.
  guarded("compute-centric", [&] {
    pim::Baseline cc;
    cc.name = "compute-centric";
    pim::ExploreOptions ccOptions;
    ccOptions.strategy = "compute-centric";
    ccOptions.eval = eval;
    if (const auto best = pim::exploreBest(p, ccOptions, cancel); best && best->simulated) {
      cc.available = true;
      cc.draft = best->draft;
      cc.eval = *best->simulated;
      cc.summary = "best of the drafts with the shortest compute phase";
    } else {
      cc.reason = "no draft could be simulated";
    }
    return std::vector<pim::Baseline>{cc};
  });
  guarded("gpu", [&] { return std::vector<pim::Baseline>{pim::gpuBaseline(p)}; });
  // The family's own (upmem: PrIM+search, a grid of about 240 PrIM runs), unless Cancel came meanwhile.
  if (!cancel.load()) guarded("family baselines", [&] { return pim::familyBaselines(p, eval); });
  return baselines;
}

}  // namespace

bool ExplorationSession::start(const SessionConfig& config) {
  cancel();                                  // a running worker is retired, not waited for
  if (m_worker.joinable()) m_worker.join();  // finished already (its last report is queued), so this is quick
  ++m_generation;                            // anything still queued from the previous run is stale now
  ++m_runId;
  m_config = config;
  m_baselines.clear();
  m_progress = {};
  m_predictorError.reset();
  m_predictorNote.clear();
  m_note.clear();
  m_adopted.reset();
  try {
    m_problem = makeProblem(config);
    pim::requireRunnable(*m_problem);  // the target's verdict before any draft is generated
  } catch (const std::exception& e) {
    m_problem.reset();
    m_explorer.reset();
    emit failed(QString::fromStdString(e.what()));
    return false;
  }

  m_options = exploreOptionsFor(config);
  m_predictor.reset();
  const pim::StrategyInfo* strategy = pim::StrategyRegistry::builtin().find(config.strategy);
  if (strategy && strategy->predictions == pim::PredictionUse::Required) {
    pim::ShippedModel shipped;
    try {
      shipped = pim::sharedShippedModel(m_problem->backend());  // loaded once, not on every start
    } catch (const std::exception& e) {
      m_note = QString::fromStdString(e.what()) + QStringLiteral("; ");
    }
    m_predictor = shipped.model;
    if (m_predictor) {
      m_options.predictor = m_predictor.get();
      if (shipped.trainedOnThisBackend) {
        m_predictorError = m_predictor->expectedErrorPct();
      } else {
        // Its validation error was measured on the hardware it was trained on and says nothing about these
        // parameters, so none is shown. It still ranks: it is the only model, and the run only uses it to
        // choose which drafts to simulate. Every time reported for a picked draft is simulated, so an
        // extrapolated ranking can miss the best draft but cannot misreport one; the fallback without a
        // model simulates only the first N drafts in id order, blind to their cost.
        m_predictorNote = extrapolationNote(config, *m_predictor);
      }
    } else {
      m_options.strategy = strategy->fallback;
      if (m_options.maxSimulations == 0) m_options.maxSimulations = kFallbackSimulations;
      m_note += QStringLiteral("no shipped model for %1: %2, first %3 simulations")
                    .arg(QString::fromStdString(config.backend))
                    .arg(QString::fromStdString(strategy->fallback))
                    .arg(m_options.maxSimulations);
    }
  }

  if (config.backendOverride) {
    // Say so: the numbers are for edited hardware, and a shipped model saw only the shipped parameters.
    if (!m_note.isEmpty()) m_note += QStringLiteral("; ");
    m_note += QStringLiteral("what-if %1").arg(QString::fromStdString(config.backend));
  }
  if (!m_predictorNote.isEmpty())
    m_note += (m_note.isEmpty() ? QString() : QStringLiteral("; ")) + m_predictorNote;
  m_explorer = std::make_shared<pim::Explorer>(*m_problem, m_options);
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_cancelledAtNs = 0;
  m_returnedAtNs = std::make_shared<std::atomic<std::int64_t>>(0);
  m_running = true;
  emit started();

  const unsigned generation = m_generation;
  // The worker holds its own references so a superseded run can finish safely; `this` outlives it because
  // stopAndWait() joins before any restart and in the destructor.
  m_worker = std::thread([this, generation, explorer = m_explorer, problem = m_problem, cancel = m_cancel,
                          predictor = m_predictor, eval = m_options.eval, returnedAt = m_returnedAtNs] {
    auto report = [this, generation](const pim::ExploreProgress& p) {
      QMetaObject::invokeMethod(
          this,
          [this, generation, p] {
            if (generation == m_generation) deliverProgress(p);
          },
          Qt::QueuedConnection);
    };
    try {
      explorer->run(*cancel, report);
    } catch (const std::exception& e) {
      QString msg = QString::fromStdString(e.what());
      QMetaObject::invokeMethod(
          this, [this, msg] { emit failed(msg); }, Qt::QueuedConnection);
    }
    returnedAt->store(nowNs());
    const bool cancelled = cancel->load();
    std::vector<pim::Baseline> baselines;
    if (!cancelled) baselines = baselinesOf(*problem, eval, *cancel);
    pim::ExploreProgress last = explorer->progress();
    QMetaObject::invokeMethod(
        this,
        [this, generation, cancelled, last, baselines = std::move(baselines)]() mutable {
          if (generation != m_generation) return;
          m_running = false;
          if (m_worker.joinable()) m_worker.join();  // the worker has returned by now (this is its last act)
          deliverProgress(last);
          m_baselines = std::move(baselines);
          emit baselinesReady();
          emit finished(cancelled);
        },
        Qt::QueuedConnection);
  });
  return true;
}

bool ExplorationSession::adopt(const SessionConfig& config, std::vector<pim::DraftRecord> records,
                               std::vector<pim::Baseline> baselines, const pim::ExploreProgress& progress,
                               std::optional<double> predictorErrorPct, const QString& note) {
  stopAndWait();
  ++m_generation;
  ++m_runId;
  m_config = config;
  m_progress = {};
  m_baselines.clear();
  m_explorer.reset();
  m_predictor.reset();
  m_predictorNote.clear();
  m_cancel.reset();
  m_adopted.reset();
  try {
    m_problem = makeProblem(config);
    pim::resolveCandidates(*m_problem, records, baselines);
  } catch (const std::exception& e) {
    m_problem.reset();
    emit failed(QString::fromStdString(e.what()));
    return false;
  }
  m_options = exploreOptionsFor(config);
  m_predictorError = predictorErrorPct;
  m_note = note;
  m_adopted = std::make_shared<const std::vector<pim::DraftRecord>>(std::move(records));
  // The same sequence a finished run reports, so the window takes the results in exactly as it would live.
  emit started();
  // The error the stored confirmations measure (a session file keeps no model, so no distribution verdict).
  pim::ExploreProgress shown = progress;
  shown.predictionError = pim::measuredError(*m_adopted);
  shown.modelUsed = std::any_of(m_adopted->begin(), m_adopted->end(),
                                [](const pim::DraftRecord& r) { return r.predictedNs.has_value(); });
  deliverProgress(shown);
  m_baselines = std::move(baselines);
  emit baselinesReady();
  emit finished(false);
  return true;
}

void ExplorationSession::deliverProgress(const pim::ExploreProgress& p) {
  m_progress = p;
  emit progressed(p);
}

}  // namespace pimgui
