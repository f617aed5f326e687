// SPDX-License-Identifier: Apache-2.0
// LLM inference end to end in the window (issue 21, Run > LLM inference…): choose a model, its hardware
// (GPUs, PIM devices beside each, element type, power constraint), the systems and one request (batch, input
// and output tokens); Run runs every system off the GUI thread with progress and Cancel (systems already
// finished are kept), and the tabs show the breakdown per phase normalised to the GPU (DCC Fig. 11), the time
// of every decode step, the decision table of a chosen system and the warm-up of a request stream (DCC Fig.
// 15). Everything here is `pimscope-cli llm` / `serve` (the same engine calls, the same numbers, the same
// CSV).
#pragma once
#include <QElapsedTimer>
#include <QWidget>
#include <memory>
#include <vector>

#include "views/llm_inputs.h"
#include "views/llm_runner.h"
#include "views/session_config.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QToolButton;

namespace pimgui {

class LlmBreakdownChart;
class LlmDecisionsPanel;
class LlmTokenChart;
class LlmWarmupPanel;

class LlmView : public QWidget {
  Q_OBJECT
 public:
  explicit LlmView(QWidget* parent = nullptr);
  ~LlmView() override;

  /// Runs the request in the form on the ticked systems (the Run button). An input the engine refuses is
  /// named next to the button and nothing runs.
  void run();
  /// Serves the Warm-up tab's stream online and offline (its "Run request stream…" button).
  void serve();
  void cancel();
  bool running() const;
  /// Ticks exactly `systems` (names as systemNames()).
  void chooseSystems(const QStringList& systems);

  /// The last run's systems so far (nullptr before the first, or after a refused one).
  std::shared_ptr<const LlmRun> lastRun() const { return m_run; }
  /// CSV through engine/llm/llm_export.h (the CLI's writers). False with the reason, naming the file.
  bool exportTokensCsv(const QString& path, QString* error = nullptr) const;
  bool exportDecisionsCsv(const QString& path, QString* error = nullptr) const;
  bool exportServedCsv(const QString& path, QString* error = nullptr) const;
  enum class Chart { Breakdown, Tokens, Warmup };
  /// PNG, SVG or PDF of a chart by the suffix (views/plot_export.h). False with the reason in `error`.
  bool exportChart(Chart c, const QString& path, QString* error = nullptr) const;
  /// llm_breakdown.png and llm_tokens.png of the last run into `dir` (none before a run); the paths written.
  QStringList saveScreenshots(const QString& dir);

  // For tests and screenshots.
  QComboBox* modelBox() const { return m_model; }
  QComboBox* dtypeBox() const { return m_dtype; }
  QSpinBox* gpusBox() const { return m_gpus; }
  QSpinBox* devicesBox() const { return m_devices; }
  QCheckBox* powerBox() const { return m_power; }
  QCheckBox* lmHeadBox() const { return m_lmHead; }
  QLineEdit* batchField() const { return m_batch.edit; }
  QLineEdit* linField() const { return m_lin.edit; }
  QLineEdit* loutField() const { return m_lout.edit; }
  QCheckBox* systemBox(const QString& name) const;
  QPushButton* runButton() const { return m_runButton; }
  QPushButton* cancelButton() const { return m_cancel; }
  QLabel* error() const { return m_error; }
  QLabel* status() const { return m_status; }
  QTabWidget* tabs() const { return m_tabs; }
  LlmBreakdownChart* breakdown() const { return m_breakdown; }
  LlmTokenChart* tokens() const { return m_tokens; }
  LlmDecisionsPanel* decisions() const { return m_decisions; }
  LlmWarmupPanel* warmup() const { return m_warmup; }

 signals:
  /// A run or stream ended (finished, cancelled or refused).
  void done();
  /// A decision row asks for its PIM kernel in the explorer.
  void exploreRequested(const pimgui::SessionConfig& config);

 private:
  void buildHardwareInputs();  // model, type, GPUs, PIM devices, power constraint
  QLayout* buildForm();        // those, the request, the systems, Run, Cancel and Export
  QWidget* buildTabs();
  QToolButton* buildExportButton();
  void connectSignals();
  pim::llm::LlmSetup setup() const;
  std::vector<LlmField> fields() const;
  void showError(const QString& message);
  void setRunning(bool running);
  void showRun(std::shared_ptr<const LlmRun> run);
  void onFinished(bool cancelled);
  void describeModel();
  void exportCsvInteractive(const QString& what);
  void exportChartInteractive(Chart c);
  QString baseName(const QString& what) const;

  enum class Job { None, Inference, Serve };
  LlmRunner* m_runner;
  Job m_job = Job::None;
  std::size_t m_asked = 0;  // systems the running request was started on
  QElapsedTimer m_clock;
  std::shared_ptr<const LlmRun> m_run;
  QComboBox *m_model, *m_dtype;
  QSpinBox *m_gpus, *m_devices;
  QCheckBox *m_power, *m_lmHead;
  LlmField m_batch, m_lin, m_lout;
  std::vector<QCheckBox*> m_systems;
  QPushButton *m_runButton, *m_cancel;
  QToolButton* m_export;
  QLabel *m_error, *m_status;
  QTabWidget* m_tabs;
  LlmBreakdownChart* m_breakdown;
  LlmTokenChart* m_tokens;
  LlmDecisionsPanel* m_decisions;
  LlmWarmupPanel* m_warmup;
};

}  // namespace pimgui
