// SPDX-License-Identifier: Apache-2.0
#include "views/llm_decisions_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

#include "views/llm_breakdown_chart.h"
#include "views/llm_decision_model.h"

namespace pimgui {
namespace {

using namespace pim::llm;

QString gb(std::int64_t bytes) { return QString::number(static_cast<double>(bytes) / 1e9, 'f', 2); }

QString memoryText(const SystemResult& s, const LlmRun& run) {
  const MemoryUse& m = s.memory;
  QString t = QObject::tr("Memory: %1 GB of weights + %2 GB of KV cache in %3 GB (%4 GPU%5 x %6 %7 stacks)")
                  .arg(gb(m.weightBytes), gb(m.kvBytes), gb(m.capacityBytes))
                  .arg(run.setup.gpus)
                  .arg(run.setup.gpus > 1 ? QStringLiteral("s") : QString())
                  .arg(run.backend ? run.backend->system.devices : run.setup.pimDevicesPerGpu)
                  .arg(QString::fromStdString(run.setup.backend));
  if (!s.available)
    return t +
           QObject::tr("\n%1 cannot run: %2").arg(QString::fromStdString(s.system), llmUnavailableReason(s));
  return t + QObject::tr("; weight preload %1 ms at model load; KV cache laid out again %2 time(s)")
                 .arg(m.weightPreloadMs, 0, 'f', 3)
                 .arg(m.relayouts);
}

}  // namespace

LlmDecisionsPanel::LlmDecisionsPanel(QWidget* parent) : QWidget(parent) {
  m_system = new QComboBox;
  m_system->setToolTip(tr("The system whose decisions the table shows"));
  m_system->setMinimumContentsLength(16);
  m_model = new LlmDecisionModel(this);
  m_table = new QTableView;
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(LlmDecisionModel::kSchedule, QHeaderView::Stretch);
  m_table->setWordWrap(false);
  m_memory = new QLabel;
  m_memory->setWordWrap(true);
  m_memory->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_residency = new QLabel;
  m_residency->setWordWrap(true);
  m_residency->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_residency->setStyleSheet(QStringLiteral("color: #555;"));

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("System:")));
  top->addWidget(m_system);
  top->addSpacing(12);
  auto* hint = new QLabel(
      tr("Double-click a gemv[…], attn[…] or attn_gqa[…] row to explore that kernel in the main window"));
  hint->setStyleSheet(QStringLiteral("color: #555;"));
  top->addWidget(hint, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_memory);
  layout->addWidget(m_residency);

  connect(m_system, &QComboBox::activated, this, [this] {
    m_userChose = true;
    showChosen();
  });
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& i) { openRow(i.row()); });
  setRun(nullptr);
}

void LlmDecisionsPanel::setRun(std::shared_ptr<const LlmRun> run) {
  const QString kept = m_userChose ? m_system->currentData().toString() : QString();
  m_run = std::move(run);
  const QSignalBlocker block(m_system);
  m_system->clear();
  if (!m_run) m_userChose = false;
  QString first, firstPim;  // the default: the first system that ran with PIM, else the first that ran
  for (const SystemResult& s : m_run ? m_run->result.systems : std::vector<SystemResult>{}) {
    const QString name = QString::fromStdString(s.system);
    m_system->addItem(s.available ? name : tr("%1 (cannot run)").arg(name), name);
    if (s.available && first.isEmpty()) first = name;
    if (s.available && firstPim.isEmpty() && s.system != "gpu") firstPim = name;
  }
  const QString pick =
      !kept.isEmpty() && m_system->findData(kept) >= 0 ? kept : (firstPim.isEmpty() ? first : firstPim);
  const int at = m_system->findData(pick);
  m_system->setCurrentIndex(at >= 0 ? at : 0);
  showChosen();
}

bool LlmDecisionsPanel::showSystem(const QString& system) {
  const int at = m_system->findData(system);
  if (at < 0) return false;
  m_system->setCurrentIndex(at);
  m_userChose = true;
  showChosen();
  return true;
}

const SystemResult* LlmDecisionsPanel::chosen() const {
  if (!m_run) return nullptr;
  const std::string name = m_system->currentData().toString().toStdString();
  for (const SystemResult& s : m_run->result.systems)
    if (s.system == name) return &s;
  return nullptr;
}

void LlmDecisionsPanel::showChosen() {
  const SystemResult* s = chosen();
  m_model->setDecisions(s ? s->decisions : std::vector<KernelDecision>{});
  m_memory->setText(s ? memoryText(*s, *m_run) : tr("Run a request to see where every kernel ran"));
  m_residency->setText(s && !s->memory.policy.empty()
                           ? tr("Residency: %1").arg(QString::fromStdString(s->memory.policy))
                           : QString());
}

std::optional<SessionConfig> LlmDecisionsPanel::explorerConfig(int row) const {
  if (!m_run || row < 0 || row >= m_model->rowCount()) return std::nullopt;
  const auto kernel = llmPimKernelOf(m_model->decision(row).shape);
  if (!kernel) return std::nullopt;
  SessionConfig c;
  c.backend = m_run->setup.backend;
  // The run's devices and power constraint, as a what-if of the shipped backend when they differ from it.
  if (m_run->backendEdited) c.backendOverride = m_run->backend;
  c.kernel = kernel->kernel;
  c.shape = kernel->dims;
  c.resident.reset();  // what the kernel declares: W for gemv, K and V for attn, as the LLM run keeps them
  return c;
}

void LlmDecisionsPanel::openRow(int row) {
  if (auto c = explorerConfig(row)) {
    emit exploreRequested(*c);
    emit message(tr("Opened %1 %2 on %3 in the main window")
                     .arg(QString::fromStdString(c->kernel), QString::fromStdString(c->shape),
                          QString::fromStdString(c->backend)));
    return;
  }
  if (row >= 0 && row < m_model->rowCount())
    emit message(
        tr("%1 (%2) has no PIM kernel to open: only gemv[…], attn[…] and attn_gqa[…] rows run on PIM")
            .arg(QString::fromStdString(m_model->decision(row).op),
                 QString::fromStdString(m_model->decision(row).shape)));
}

}  // namespace pimgui
