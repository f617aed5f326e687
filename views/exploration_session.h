// SPDX-License-Identifier: Apache-2.0
// One live exploration: builds the Problem, runs the engine's Explorer on a worker thread, then the vendor
// and GPU baselines, and reports back on the GUI thread through queued signals. The GUI never runs engine
// work itself; it only copies records out (Explorer::records() is thread-safe).
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "engine/search/explorer.h"
#include "views/pool_tasks.h"
#include "views/session_config.h"

namespace pimgui {

/// The problem `config` describes (its backend, or the what-if copy; its kernel; its shape). Throws
/// pim::InputError naming what is wrong. Cheap: it builds memoised counts, no drafts.
std::shared_ptr<const pim::Problem> makeProblem(const SessionConfig& config);
/// The explorer's options for `config` (strategy, rules, passes, cap), before the model is chosen.
pim::ExploreOptions exploreOptionsFor(const SessionConfig& config);

class ExplorationSession : public QObject {
  Q_OBJECT
 public:
  explicit ExplorationSession(QObject* parent = nullptr);
  ~ExplorationSession() override;

  /// Cancels any running exploration, builds the problem and starts exploring. Returns false (and emits
  /// failed) when the input is invalid.
  bool start(const SessionConfig& config);
  /// Sets the cancel flag and ends the run for the GUI at once: `finished(true)` follows immediately with
  /// what was found. The explorer checks the flag between simulations, so the worker may still finish the one
  /// in flight (tens to hundreds of ms); it is retired and joined later, and its late reports are dropped.
  void cancel();
  /// Time from cancel() to the explorer returning on the worker, once both happened.
  std::optional<double> cancelLatencyMs() const;
  /// Cancels and waits for the worker (used before starting another run and on shutdown).
  void stopAndWait();
  /// Shows the finished results of an earlier run (a session file) without exploring: builds the problem
  /// from `config`, then emits started, progressed, baselinesReady and finished(false) like a run that just
  /// ended, and records()/snapshots return `records`. Their drafts need only ids: the parts are decoded
  /// through the problem here. Returns false (and emits failed) when the input is invalid.
  bool adopt(const SessionConfig& config, std::vector<pim::DraftRecord> records,
             std::vector<pim::Baseline> baselines, const pim::ExploreProgress& progress,
             std::optional<double> predictorErrorPct, const QString& note);

  bool running() const { return m_running; }
  const SessionConfig& config() const { return m_config; }
  /// The problem of the current run (shared with the worker and the per-draft analyses).
  std::shared_ptr<const pim::Problem> problem() const { return m_problem; }
  const pim::ExploreOptions& options() const { return m_options; }
  /// Thread-safe snapshot of the records so far (copies every record: use requestSnapshot on the GUI thread).
  std::vector<pim::DraftRecord> records() const;
  /// Copies the records on a pool thread and delivers them with `snapshot`. Returns the ticket of the copy
  /// that will answer: a copy started after this call (queued behind the one in flight, if any).
  std::uint64_t requestSnapshot();
  bool snapshotPending() const { return m_snapshotPending; }
  pim::ExploreProgress progress() const { return m_progress; }
  const std::vector<pim::Baseline>& baselines() const { return m_baselines; }
  /// Expected prediction error in % when the predictor strategy runs with a model trained on this very
  /// hardware, else nullopt (no model, or an extrapolating one: see predictorNote).
  std::optional<double> predictorErrorPct() const { return m_predictorError; }
  /// Non-empty when the model ranks hardware it was not trained on (a what-if edit): says so in plain words.
  /// Also part of note().
  QString predictorNote() const { return m_predictorNote; }
  /// The shipped model the run explores with (null without one); the pruned lister predicts with it too.
  std::shared_ptr<const pim::Predictor> predictor() const { return m_predictor; }
  /// Notes for the status bar ("no shipped model: exhaustive, 300 simulations").
  QString note() const { return m_note; }

 signals:
  void started();
  void progressed(const pim::ExploreProgress& p);
  void finished(bool cancelled);
  void baselinesReady();
  void failed(const QString& message);
  void snapshot(std::shared_ptr<const std::vector<pim::DraftRecord>> records, quint64 ticket);

 private:
  void deliverProgress(const pim::ExploreProgress& p);

  SessionConfig m_config;
  pim::ExploreOptions m_options;
  std::shared_ptr<const pim::Problem> m_problem;
  std::shared_ptr<const pim::Predictor> m_predictor;
  std::shared_ptr<pim::Explorer> m_explorer;
  std::shared_ptr<const std::vector<pim::DraftRecord>> m_adopted;  // records of adopt(), no explorer then
  std::vector<pim::Baseline> m_baselines;
  pim::ExploreProgress m_progress;
  std::optional<double> m_predictorError;
  QString m_predictorNote;
  QString m_note;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  std::int64_t m_cancelledAtNs = 0;                           // steady clock, GUI thread
  std::shared_ptr<std::atomic<std::int64_t>> m_returnedAtNs;  // steady clock, set by the worker
  std::thread m_worker;
  std::vector<std::thread> m_retired;  // cancelled workers finishing their last simulation
  bool m_running = false;
  bool m_snapshotPending = false, m_snapshotAgain = false;
  std::uint64_t m_snapshotTicket = 0;
  unsigned m_runId = 0;       // bumped per start(); snapshots of an older run are dropped
  unsigned m_generation = 0;  // drops queued reports of a superseded run
  PoolTasks m_tasks;          // snapshot copies; last: they capture `this`
};

}  // namespace pimgui

Q_DECLARE_METATYPE(pim::ExploreProgress)
