// SPDX-License-Identifier: Apache-2.0
// Compare backends: one kernel at one shape on 2 to 4 backends side by side, each with its best draft,
// against a pinned baseline (GPU-only or one of the backends), ending in the engine's verdict. Every number
// comes from pim::compareBackends (run by CompareRunner off the GUI thread); the view only lays it out: a
// table, stacked time bars on one µs scale (through the BreakdownChart adapter) and the verdict.
#pragma once
#include <QElapsedTimer>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>

#include "engine/workflow/compare.h"
#include "views/session_config.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTimer;

namespace pimgui {

class BreakdownChart;
class CompareRunner;
class RunProgress;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  enum Column {
    Backend,
    Strategy,
    Draft,
    Parts,
    InCycles,
    ComputeCycles,
    OutCycles,
    TimeUs,
    Energy,
    Speedup
  };
  /// Table items of numeric columns carry the engine's unformatted value under this role (ns for TimeUs, pJ
  /// for Energy).
  static constexpr int ValueRole = Qt::UserRole + 1;

  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  /// Takes kernel, shape and evaluation options (optimizer passes) from the control panel's problem.
  void loadProblem(const SessionConfig& c);
  /// Checks exactly `backends` (those that can run the kernel) and pins `baseline` ("gpu" or a name).
  void choose(const QStringList& backends, const QString& baseline = QStringLiteral("gpu"));
  void setBaseline(const QString& baseline);
  /// Starts the comparison of the current choice; false when the choice is not 2 to 4 backends.
  bool compare();
  void cancel();

  /// What compare() hands to the engine.
  pim::CompareOptions options() const;
  QStringList chosen() const;
  QString baseline() const;
  bool running() const;
  /// The comparison on screen (nullptr before the first, after a failure or a cancel).
  std::shared_ptr<const pim::Comparison> comparison() const { return m_shown; }

  QCheckBox* backendBox(const QString& name) const;
  QComboBox* baselineBox() const { return m_baseline; }
  QPushButton* compareButton() const { return m_compare; }
  QPushButton* cancelButton() const { return m_cancel; }
  /// Which backend is searched, its n of N and time left, while a comparison runs.
  RunProgress* progressBar() const { return m_progress; }
  QTableWidget* table() const { return m_table; }
  BreakdownChart* chart() const { return m_chart; }
  QLabel* verdictLabel() const { return m_verdict; }
  QString status() const;
  CompareRunner* runner() const { return m_runner; }

 signals:
  /// A comparison ended: results shown, failed or cancelled.
  void done();
  /// Open `backend` with its best draft in the explorer (double-click on a row or "Open in explorer").
  void drillDownRequested(const pimgui::SessionConfig& config, quint64 draft);

 private:
  std::string kernelName() const;     // empty for a DSL file
  std::string kernelFile() const;     // empty for a library kernel
  pim::Kernel currentKernel() const;  // throws InputError
  void showElapsed();
  void onKernelChanged();
  /// Ticks up to four backends that can run the kernel, one per family before a second of any family.
  void chooseDefault();
  void updateChoice();
  void updateHint();  // the count hint and whether Compare is enabled (pim::backendCountError)
  void rebuildBaselines();
  void showComparison(std::shared_ptr<const pim::Comparison> c);
  void clearResults();
  void fitTable();
  void setBusy(bool busy);
  void requestDrillDown(int row);

  QComboBox* m_kernel;
  QLineEdit* m_shape;
  std::map<QString, QCheckBox*> m_backends;
  std::map<QString, QLabel*> m_reasons;
  QComboBox* m_baseline;
  QPushButton* m_compare;
  QPushButton* m_cancel;
  QPushButton* m_open;
  QLabel* m_hint;
  RunProgress* m_progress;
  QLabel* m_status;
  QLabel* m_heading;
  QLabel* m_verdict;
  QTableWidget* m_table;
  BreakdownChart* m_chart;
  CompareRunner* m_runner;
  QTimer* m_tick;
  QElapsedTimer m_clock;
  SessionConfig m_session;  // where rules, strategy and optimizer passes come from
  SessionConfig m_ran;      // the problem of the last compare() (drill-down opens this)
  std::shared_ptr<const pim::Comparison> m_shown;
  QString m_what;                   // "gemv[b=1,n=8192] on 2 backends": the run in flight or shown
  bool m_restartOnBaseline = true;  // off while the baseline list is rebuilt
  /// The ticks are chooseDefault()'s, made again for each kernel, until the user or choose() sets them.
  bool m_defaultChoice = true;
};

}  // namespace pimgui
