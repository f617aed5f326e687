// SPDX-License-Identifier: Apache-2.0
#include "views/llm_warmup_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "engine/llm/system.h"
#include "views/llm_serve_chart.h"

namespace pimgui {
namespace {

LlmField field(const QString& text, const QString& label, const QString& option, const QString& tip) {
  auto* edit = new QLineEdit(text);
  edit->setToolTip(tip);
  edit->setMaximumWidth(110);
  return {edit, label, option};
}

}  // namespace

LlmWarmupPanel::LlmWarmupPanel(QWidget* parent) : QWidget(parent) {
  // Small by default (about 25 s on GPT-3 13B): the paper's 128-2048 tokens compile a shape per context
  // length and take many minutes.
  m_requests = field(QStringLiteral("100"), tr("Requests"), QStringLiteral("--requests"),
                     tr("Requests in the stream"));
  m_seed = field(QStringLiteral("1"), tr("Seed"), QStringLiteral("--seed"),
                 tr("Random seed of the stream: the same seed draws the same requests on every platform"));
  m_batch = field(QStringLiteral("64"), tr("Batch"), QStringLiteral("--batch"), tr("Sequences per request"));
  m_lin = field(QStringLiteral("128-144"), tr("Input tokens"), QStringLiteral("--lin"),
                tr("Input tokens of each request, drawn uniformly from A-B (DCC Fig. 15: 128-2048, slow)"));
  m_lout = field(QStringLiteral("2-8"), tr("Output tokens"), QStringLiteral("--lout"),
                 tr("Output tokens of each request, drawn uniformly from A-B (at least 2; DCC Fig. 15: "
                    "128-2048, slow)"));
  m_system = new QComboBox;
  for (const std::string& name : pim::llm::systemNames()) m_system->addItem(QString::fromStdString(name));
  m_system->setCurrentText(QStringLiteral("attacc-full+dcc"));
  m_system->setToolTip(
      tr("The system serving the stream; a +dcc system (or auto) compiles through the table"));
  m_run = new QPushButton(tr("Run request stream…"));
  m_run->setToolTip(
      tr("Serve the stream online, then offline, each from an empty lookup table, on the "
         "model and hardware above (pimscope-cli serve --lookup both)"));
  m_error = new QLabel;
  m_error->setStyleSheet(QStringLiteral("color: #b22222;"));
  m_error->setWordWrap(true);
  m_chart = new LlmServeChart;

  auto* row = new QHBoxLayout;
  for (const LlmField* f : {&m_requests, &m_seed, &m_batch, &m_lin, &m_lout}) {
    row->addWidget(new QLabel(f->label + QLatin1Char(':')));
    row->addWidget(f->edit);
  }
  row->addWidget(new QLabel(tr("System:")));
  row->addWidget(m_system);
  row->addStretch(1);
  row->addWidget(m_run);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(row);
  layout->addWidget(m_error);
  layout->addWidget(m_chart, 1);
  m_error->hide();
  connect(m_run, &QPushButton::clicked, this, &LlmWarmupPanel::runRequested);
  // Return in these fields serves the stream; the dialog would otherwise press its default button (Run).
  m_run->setAutoDefault(false);
  for (const LlmField& f : fields()) f.edit->installEventFilter(this);
}

bool LlmWarmupPanel::eventFilter(QObject* watched, QEvent* e) {
  if (e->type() == QEvent::KeyPress) {
    const int key = static_cast<QKeyEvent*>(e)->key();
    if ((key == Qt::Key_Return || key == Qt::Key_Enter) && m_run->isEnabled()) {
      emit runRequested();
      return true;
    }
  }
  return QWidget::eventFilter(watched, e);
}

std::vector<LlmField> LlmWarmupPanel::fields() const { return {m_requests, m_seed, m_batch, m_lin, m_lout}; }

std::optional<pim::llm::StreamSpec> LlmWarmupPanel::spec() {
  for (const LlmField& f : fields()) markField(f, false);
  QString error;
  const auto refuse = [&](const LlmField* f, const QString& why) {
    if (f) markField(*f, true);
    m_error->setText(why.isEmpty() ? error : why);
    m_error->show();
    return std::nullopt;
  };
  pim::llm::StreamSpec s;
  const auto requests = readWholeNumber(m_requests, &error);
  if (!requests) return refuse(nullptr, {});
  if (*requests < 1 || *requests > 1000000)
    return refuse(&m_requests, tr("Requests: %1 is outside 1..1000000").arg(*requests));
  const auto seed = readWholeNumber(m_seed, &error);
  if (!seed) return refuse(nullptr, {});
  if (*seed < 0) return refuse(&m_seed, tr("Seed: %1 is negative").arg(*seed));
  const auto batch = readWholeNumber(m_batch, &error);
  if (!batch) return refuse(nullptr, {});
  const auto lin = readRange(m_lin, &error);
  if (!lin) return refuse(nullptr, {});
  const auto lout = readRange(m_lout, &error);
  if (!lout) return refuse(nullptr, {});
  m_error->hide();
  s.requests = static_cast<int>(*requests);
  s.seed = static_cast<std::uint64_t>(*seed);
  s.batch = *batch;
  std::tie(s.linMin, s.linMax) = *lin;
  std::tie(s.loutMin, s.loutMax) = *lout;
  return s;
}

pim::llm::SystemChoice LlmWarmupPanel::system() const {
  return pim::llm::parseSystem(m_system->currentText().toStdString());
}

void LlmWarmupPanel::showError(const QString& message) {
  m_error->setText(showFieldError(message, fields()));
  m_error->setVisible(!message.isEmpty());
}

void LlmWarmupPanel::setRunning(bool running) {
  for (const LlmField& f : fields()) f.edit->setEnabled(!running);
  m_system->setEnabled(!running);
  m_run->setEnabled(!running);
  if (running) m_error->hide();
}

void LlmWarmupPanel::setRuns(std::vector<pim::llm::ServeResult> runs) {
  m_runs = std::move(runs);
  m_chart->setRuns(m_runs);
}

}  // namespace pimgui
