// SPDX-License-Identifier: Apache-2.0
#include "views/llm_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/llm/llm_model.h"
#include "engine/llm/system.h"
#include "views/llm_breakdown_chart.h"
#include "views/llm_decisions_panel.h"
#include "views/llm_serve_chart.h"
#include "views/llm_token_chart.h"
#include "views/llm_warmup_panel.h"
#include "views/plot_export.h"

namespace pimgui {
namespace {

using namespace pim::llm;

QString systemTip(const std::string& name) {
  if (name == "gpu") return QObject::tr("GPU only: every operator on the A100s (the reference, 1.0)");
  if (name == "auto")
    return QObject::tr("Every kernel where it is fastest: GPU, PIM or both, DCC's schedules");
  const bool full = name.starts_with("attacc-full");
  QString t = full ? QObject::tr("AttAcc_Full: attention and a share of the FFN on PIM")
                   : QObject::tr("AttAcc_Base: attention on PIM, the rest on the GPU");
  return t + (name.ends_with("+dcc") ? QObject::tr(", with DCC's schedules (compiled on first use)")
                                     : QObject::tr(", with the vendor's tiling"));
}

LlmField numberField(const QString& text, const QString& label, const QString& option, const QString& tip) {
  auto* edit = new QLineEdit(text);
  edit->setToolTip(tip);
  edit->setMaximumWidth(90);
  return {edit, label, option};
}

}  // namespace

LlmView::LlmView(QWidget* parent) : QWidget(parent) {
  m_runner = new LlmRunner(this);
  m_status = new QLabel;  // before the form: a model list that cannot be read is reported here
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QLayout* form = buildForm();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_status);
  layout->addWidget(buildTabs(), 1);
  connectSignals();
  describeModel();
  if (m_model->count() == 0) {
    m_runButton->setEnabled(false);
    return;  // the status line says why
  }
  m_status->setText(
      tr("Choose a model, the systems and a request, then Run. A +dcc system compiles each new "
         "kernel shape once (under a minute at 2048 tokens); later runs of the same model and "
         "hardware reuse its lookup table."));
}

LlmView::~LlmView() { m_runner->stopAndWait(); }

void LlmView::buildHardwareInputs() {
  m_model = new QComboBox;
  try {
    for (const std::string& name : llmModelNames()) {
      const LlmModel m = llmModelByName(name);
      m_model->addItem(
          QStringLiteral("%1 (%2)").arg(QString::fromStdString(m.display), QString::fromStdString(name)),
          QString::fromStdString(name));
      m_model->setItemData(m_model->count() - 1, QString::fromStdString(m.source), Qt::ToolTipRole);
    }
  } catch (const std::exception& e) {
    m_status->setText(tr("No LLMs to run: %1").arg(QString::fromStdString(e.what())));
  }
  m_model->setCurrentIndex(std::max(0, m_model->findData(QStringLiteral("gpt3-13b"))));
  m_dtype = new QComboBox;
  m_dtype->addItem(tr("model's"), QString());
  m_dtype->addItem(QStringLiteral("fp16"), QStringLiteral("fp16"));
  m_dtype->addItem(QStringLiteral("fp8"), QStringLiteral("fp8"));
  m_dtype->setToolTip(
      tr("Element type of weights, activations and KV cache (the PIM kernels run FP16 only)"));
  m_gpus = new QSpinBox;
  m_gpus->setRange(1, 8);
  m_gpus->setToolTip(tr("A100s in tensor parallel (a DGX holds 8)"));
  m_devices = new QSpinBox;
  m_devices->setRange(1, 64);
  m_devices->setValue(LlmSetup{}.pimDevicesPerGpu);
  m_devices->setToolTip(tr("HBM-PIM stacks beside each GPU (the backend's system.devices)"));
  m_power = new QCheckBox(tr("Power constraint"));
  m_power->setChecked(true);
  m_power->setToolTip(tr("AttAcc's MACAB spacing under the power constraint (6 cycles; off: 4)"));
  m_lmHead = new QCheckBox(tr("LM head"));
  m_lmHead->setToolTip(
      tr("Also time the final norm and the LM head (hidden to vocab) of every token, placed "
         "as QKV is (--lm-head); AttAcc and DCC leave them out"));
}

QLayout* LlmView::buildForm() {
  buildHardwareInputs();
  m_batch = numberField(QStringLiteral("1"), tr("Batch"), QStringLiteral("--batch"),
                        tr("Sequences decoded together (1..65536)"));
  m_lin = numberField(QStringLiteral("2048"), tr("Input tokens"), QStringLiteral("--lin"),
                      tr("Prompt tokens, prefilled on the GPU"));
  m_lout = numberField(QStringLiteral("128"), tr("Output tokens"), QStringLiteral("--lout"),
                       tr("Tokens generated: the first comes from the prefill, each other is a decode step "
                          "(at least 2)"));
  for (const std::string& name : systemNames()) {
    auto* box = new QCheckBox(QString::fromStdString(name));
    box->setChecked(true);
    box->setToolTip(systemTip(name));
    m_systems.push_back(box);
  }
  m_runButton = new QPushButton(tr("Run"));
  m_runButton->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setEnabled(false);
  m_cancel->setAutoDefault(false);  // Return in the form always means Run
  m_cancel->setToolTip(tr("Stop within a decode step; the systems already finished are kept"));
  m_export = buildExportButton();
  m_error = new QLabel;
  m_error->setStyleSheet(QStringLiteral("color: #b22222;"));
  m_error->setWordWrap(true);
  m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* row1 = new QHBoxLayout;
  const std::pair<QString, QWidget*> hardware[] = {{tr("Model:"), m_model},
                                                   {tr("Type:"), m_dtype},
                                                   {tr("GPUs:"), m_gpus},
                                                   {tr("PIM devices per GPU:"), m_devices}};
  for (const auto& [label, w] : hardware) {
    row1->addWidget(new QLabel(label));
    row1->addWidget(w);
    row1->addSpacing(8);
  }
  row1->addWidget(m_power);
  row1->addWidget(m_lmHead);
  row1->addStretch(1);
  auto* row2 = new QHBoxLayout;
  for (const LlmField* f : {&m_batch, &m_lin, &m_lout}) {
    row2->addWidget(new QLabel(f->label + QLatin1Char(':')));
    row2->addWidget(f->edit);
    row2->addSpacing(8);
  }
  row2->addWidget(new QLabel(tr("Systems:")));
  for (QCheckBox* box : m_systems) row2->addWidget(box);
  row2->addStretch(1);
  auto* row3 = new QHBoxLayout;
  row3->addWidget(m_error, 1);
  row3->addWidget(m_runButton);
  row3->addWidget(m_cancel);
  row3->addWidget(m_export);
  auto* rows = new QVBoxLayout;
  rows->addLayout(row1);
  rows->addLayout(row2);
  rows->addLayout(row3);
  return rows;
}

QWidget* LlmView::buildTabs() {
  m_breakdown = new LlmBreakdownChart;
  m_tokens = new LlmTokenChart;
  m_decisions = new LlmDecisionsPanel;
  m_warmup = new LlmWarmupPanel;
  m_tabs = new QTabWidget;
  m_tabs->addTab(m_breakdown, tr("Breakdown"));
  m_tabs->addTab(m_tokens, tr("Per token"));
  m_tabs->addTab(m_decisions, tr("Decisions"));
  m_tabs->addTab(m_warmup, tr("Warm-up"));
  return m_tabs;
}

void LlmView::connectSignals() {
  connect(m_runButton, &QPushButton::clicked, this, &LlmView::run);
  connect(m_cancel, &QPushButton::clicked, this, &LlmView::cancel);
  connect(m_warmup, &LlmWarmupPanel::runRequested, this, &LlmView::serve);
  connect(m_model, &QComboBox::currentIndexChanged, this, &LlmView::describeModel);
  connect(m_decisions, &LlmDecisionsPanel::exploreRequested, this, &LlmView::exploreRequested);
  connect(m_decisions, &LlmDecisionsPanel::message, m_status, &QLabel::setText);
  connect(m_runner, &LlmRunner::progressed, m_status, &QLabel::setText);
  connect(m_runner, &LlmRunner::inferenceUpdated, this, &LlmView::showRun);
  connect(m_runner, &LlmRunner::served, this,
          [this](std::shared_ptr<const std::vector<ServeResult>> runs) { m_warmup->setRuns(*runs); });
  connect(m_runner, &LlmRunner::failed, this, [this](const QString& message) {
    setRunning(false);
    if (m_job == Job::Serve)
      m_warmup->showError(message);
    else
      showError(message);
    m_status->setText(tr("Not run: the input was refused (see above)"));
    m_job = Job::None;
    emit done();
  });
  connect(m_runner, &LlmRunner::finished, this, &LlmView::onFinished);
  // The charts' own right-click menus export them too.
  addExportContextMenu(m_breakdown->plot(), [this] { exportChartInteractive(Chart::Breakdown); });
  addExportContextMenu(m_tokens->plot(), [this] { exportChartInteractive(Chart::Tokens); });
  addExportContextMenu(m_warmup->chart()->plot(), [this] { exportChartInteractive(Chart::Warmup); });
}

void LlmView::describeModel() {
  // The type box's first entry says which type "the model's" is.
  if (m_model->count() == 0) return;
  try {
    const LlmModel m = llmModelByName(m_model->currentData().toString().toStdString());
    m_dtype->setItemText(0, tr("model's (%1)").arg(QString::fromStdString(m.dtype)));
    m_model->setToolTip(tr("%1: %2 layers, hidden %3, %4 heads; %5")
                            .arg(QString::fromStdString(m.display))
                            .arg(m.layers)
                            .arg(m.hidden)
                            .arg(m.heads)
                            .arg(QString::fromStdString(m.source)));
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

LlmSetup LlmView::setup() const {
  LlmSetup s;
  s.model = m_model->currentData().toString().toStdString();
  s.dtype = m_dtype->currentData().toString().toStdString();
  s.gpus = m_gpus->value();
  s.pimDevicesPerGpu = m_devices->value();
  s.powerConstraint = m_power->isChecked();
  s.lmHead = m_lmHead->isChecked();
  return s;
}

std::vector<LlmField> LlmView::fields() const {
  // The CLI's names of the form's other inputs, so an engine message about them names them too.
  return {m_batch,
          m_lin,
          m_lout,
          {nullptr, tr("GPUs"), QStringLiteral("--gpus")},
          {nullptr, tr("Type"), QStringLiteral("--dtype")},
          {nullptr, tr("Systems"), QStringLiteral("--system")}};
}

void LlmView::showError(const QString& message) { m_error->setText(showFieldError(message, fields())); }

QCheckBox* LlmView::systemBox(const QString& name) const {
  for (QCheckBox* b : m_systems)
    if (b->text() == name) return b;
  return nullptr;
}

void LlmView::chooseSystems(const QStringList& systems) {
  for (QCheckBox* b : m_systems) b->setChecked(systems.contains(b->text()));
}

bool LlmView::running() const { return m_runner->running(); }

void LlmView::setRunning(bool running) {
  for (QWidget* w : std::initializer_list<QWidget*>{m_model, m_dtype, m_gpus, m_devices, m_power, m_lmHead,
                                                    m_batch.edit, m_lin.edit, m_lout.edit, m_runButton})
    w->setEnabled(!running);
  for (QCheckBox* b : m_systems) b->setEnabled(!running);
  m_warmup->setRunning(running);
  m_cancel->setEnabled(running);
}

void LlmView::run() {
  if (running()) return;
  showError({});
  QString error;
  const auto batch = readWholeNumber(m_batch, &error);
  const auto lin = batch ? readWholeNumber(m_lin, &error) : std::nullopt;
  const auto lout = lin ? readWholeNumber(m_lout, &error) : std::nullopt;
  std::vector<SystemChoice> systems;
  for (QCheckBox* b : m_systems)
    if (b->isChecked()) systems.push_back(parseSystem(b->text().toStdString()));
  if (error.isEmpty() && systems.empty()) error = tr("Systems: tick at least one system to run");
  if (!error.isEmpty()) {
    m_error->setText(error);
    return;
  }
  showRun(nullptr);  // the charts must not show the last request's systems as this one's
  m_asked = systems.size();
  const QString refused = m_runner->startInference(setup(), std::move(systems), *batch, *lin, *lout);
  if (!refused.isEmpty()) {
    showError(refused);
    return;
  }
  m_job = Job::Inference;
  m_clock.start();
  setRunning(true);
  m_status->setText(tr("Starting…"));
}

void LlmView::serve() {
  if (running()) return;
  const auto spec = m_warmup->spec();
  if (!spec) return;
  const QString refused = m_runner->startServe(setup(), m_warmup->system(), *spec);
  if (!refused.isEmpty()) {
    m_warmup->showError(refused);
    return;
  }
  m_warmup->setRuns({});
  showError({});  // the last request's verdict is not about this stream
  m_job = Job::Serve;
  m_clock.start();
  setRunning(true);
  m_status->setText(tr("Serving the stream online…"));
}

void LlmView::cancel() {
  if (!running()) return;
  m_runner->cancel();
  m_cancel->setEnabled(false);
  m_status->setText(tr("Stopping… (a kernel compiling now finishes first)"));
}

void LlmView::showRun(std::shared_ptr<const LlmRun> run) {
  m_run = std::move(run);
  const InferenceResult* r = m_run ? &m_run->result : nullptr;
  m_breakdown->setResult(r);
  m_tokens->setResult(r);
  m_decisions->setRun(m_run);
}

void LlmView::onFinished(bool cancelled) {
  setRunning(false);
  const QString seconds = QString::number(static_cast<double>(m_clock.elapsed()) / 1000.0, 'f', 1);
  if (m_job == Job::Serve) {
    const auto& runs = m_warmup->runs();
    const bool none =
        std::all_of(runs.begin(), runs.end(), [](const ServeResult& r) { return r.requests.empty(); });
    m_status->setText(
        cancelled ? tr("Cancelled after %1 s: %2 of 2 lookup modes kept").arg(seconds).arg(runs.size())
        : none    ? tr("Not served: the stream cannot run (see the Warm-up tab)")
                  : tr("Served online and offline in %1 s").arg(seconds));
  } else {
    std::size_t ran = 0, kept = m_run ? m_run->result.systems.size() : 0;
    for (std::size_t i = 0; i < kept; ++i) ran += m_run->result.systems[i].available;
    m_status->setText(
        cancelled ? tr("Cancelled after %1 s: %2 of %3 systems kept").arg(seconds).arg(kept).arg(m_asked)
                  : tr("Done in %1 s: %2 of %3 systems ran").arg(seconds).arg(ran).arg(kept));
    // A system that cannot run is the verdict next to Run, with the engine's reason (capacity, FP8 on PIM…).
    if (m_run) m_error->setText(llmUnavailableText(m_run->result));
  }
  m_job = Job::None;
  emit done();
}

}  // namespace pimgui
