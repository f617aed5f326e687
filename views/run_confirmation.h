// SPDX-License-Identifier: Apache-2.0
// Ask before a long run: Explore first estimates the run (pim::estimateRun on a pool thread: the strategy's
// planned simulations times one sample simulation, over the workers) and, above kLongRunSeconds, asks with
// the estimate before anything starts. "Don't ask again" (or Run > Ask before long runs) turns it off; the
// window keeps the choice between runs.
#pragma once
#include <QMessageBox>
#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "engine/search/run_estimate.h"
#include "views/pool_tasks.h"
#include "views/session_config.h"

class QWidget;

namespace pimgui {

class RunConfirmation : public QObject {
  Q_OBJECT
 public:
  static constexpr double kLongRunSeconds = 30;
  explicit RunConfirmation(QWidget* dialogParent);
  ~RunConfirmation() override;

  bool enabled() const { return m_enabled; }
  void setEnabled(bool on);
  /// Calls `start` at once when asking is off; else estimates `c` and calls it when the estimate is at most
  /// kLongRunSeconds (or cannot be made: the run then reports the problem itself) or the user says Start.
  /// A later request or cancel() drops this one.
  void request(const SessionConfig& c, std::function<void()> start);
  void cancel();
  bool estimating() const { return m_estimating; }
  /// The open question (non-modal), nullptr when none.
  QMessageBox* question() const { return m_question; }
  const std::optional<pim::RunEstimate>& lastEstimate() const { return m_last; }

 signals:
  /// An estimate started (`what` says so) or ended (empty).
  void estimatingChanged(const QString& what);
  /// cancel() stopped an estimate: no run starts.
  void estimateCancelled();
  void enabledChanged(bool on);

 private:
  bool drop();  // drops the pending request; true when an estimate was running
  void decide(const pim::RunEstimate& e, std::function<void()> start);

  QWidget* m_parent;
  bool m_enabled = true;
  bool m_estimating = false;
  unsigned m_generation = 0;
  std::shared_ptr<std::atomic<bool>> m_stopEstimate;  // the running estimate's cancel flag (drop() sets it)
  std::optional<pim::RunEstimate> m_last;
  QPointer<QMessageBox> m_question;
  PoolTasks m_tasks;  // last: its tasks capture `this`
};

}  // namespace pimgui
