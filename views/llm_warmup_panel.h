// SPDX-License-Identifier: Apache-2.0
// The LLM view's Warm-up tab (DCC section 5.7, Fig. 15): a stream of synthetic requests (count, seed, batch,
// input and output token ranges, one system) served with an online and an offline lookup table on the
// view's model and hardware, as `pimscope-cli serve --lookup both`. The defaults are small enough to finish
// in about half a minute on GPT-3 13B; the paper's setting (MT-NLG 310B on 8 GPUs, 128-2048 tokens) can be
// typed in and takes far longer.
#pragma once
#include <QWidget>
#include <optional>
#include <vector>

#include "engine/llm/serve.h"
#include "views/llm_inputs.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace pimgui {

class LlmServeChart;

class LlmWarmupPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LlmWarmupPanel(QWidget* parent = nullptr);

  /// The stream the fields ask for; nullopt with the message (naming the field) shown next to the button.
  std::optional<pim::llm::StreamSpec> spec();
  pim::llm::SystemChoice system() const;
  /// Shows an engine message about the stream next to the button, naming the field.
  void showError(const QString& message);
  void setRunning(bool running);
  void setRuns(std::vector<pim::llm::ServeResult> runs);
  const std::vector<pim::llm::ServeResult>& runs() const { return m_runs; }

  QLineEdit* requestsField() const { return m_requests.edit; }
  QLineEdit* seedField() const { return m_seed.edit; }
  QLineEdit* batchField() const { return m_batch.edit; }
  QLineEdit* linField() const { return m_lin.edit; }
  QLineEdit* loutField() const { return m_lout.edit; }
  QComboBox* systemBox() const { return m_system; }
  QPushButton* runButton() const { return m_run; }
  QLabel* error() const { return m_error; }
  LlmServeChart* chart() const { return m_chart; }

 signals:
  void runRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;

 private:
  std::vector<LlmField> fields() const;

  LlmField m_requests, m_seed, m_batch, m_lin, m_lout;
  QComboBox* m_system;
  QPushButton* m_run;
  QLabel* m_error;
  LlmServeChart* m_chart;
  std::vector<pim::llm::ServeResult> m_runs;
};

}  // namespace pimgui
