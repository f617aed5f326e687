// SPDX-License-Identifier: Apache-2.0
// MainWindow: the LLM inference window (Run > LLM inference…, views/llm_view.h) and the way its decision
// table opens a PIM kernel in the explorer.
#include <QDialog>
#include <QVBoxLayout>

#include "views/control_panel.h"
#include "views/llm_view.h"
#include "views/main_window.h"
#include "views/run_confirmation.h"

namespace pimgui {

void MainWindow::buildLlmWindow() {
  // A whole model on GPUs and PIM, not one kernel: a window of its own beside the explorer.
  m_llmDialog = new QDialog(this);
  m_llmDialog->setWindowTitle(tr("LLM inference on GPU and PIM systems"));
  m_llm = new LlmView;
  auto* layout = new QVBoxLayout(m_llmDialog);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_llm);
  m_llmDialog->resize(1240, 860);
  connect(m_llm, &LlmView::done, this, &MainWindow::checkIdle);
  connect(m_llm, &LlmView::exploreRequested, this, &MainWindow::exploreProblem);
}

void MainWindow::showLlm() {
  m_llmDialog->show();
  m_llmDialog->raise();
  m_llmDialog->activateWindow();
}

void MainWindow::exploreProblem(const SessionConfig& c) {
  showConfig(c);     // the what-if form shows an edited backend, so the run explores it
  recordControls();  // the problem the panel had is one Undo away
  updateVerdict();
  raise();
  activateWindow();
  // Exactly `c` (not the panel with an unrelated what-if edit): the kernel on the backend the LLM run used.
  m_confirm->request(c, [this, c] { startSession(c); });
}

}  // namespace pimgui
