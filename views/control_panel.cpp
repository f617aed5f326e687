// SPDX-License-Identifier: Apache-2.0
#include "views/control_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <exception>
#include <limits>

#include "engine/common/number_text.h"
#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/prune/prune_rule.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"
#include "views/kernel_combo.h"
#include "views/residency_input.h"
#include "views/timing_combo.h"

namespace pimgui {

namespace {
pim::Kernel kernelFor(const QString& name, const QString& file) {
  return pim::resolveKernel(name.toStdString(), file.toStdString());
}

/// "21 CONV and FC layers, 1.81 G MACs, input 1 x 3 x 224 x 224: ..." (or why it does not load).
QString networkSummary(const QString& name) {
  try {
    const auto net = pim::resolveNetwork(name.toStdString(), "");
    const auto layers = pim::convLayers(*net);
    double macs = 0;
    for (const auto& l : layers) macs += static_cast<double>(pim::convLayerMacs(l));
    QStringList input;
    for (const std::int64_t d : net->nodes.front().output_dim) input << QString::number(d);
    // "1.81 G", "416,520": a small network's MACs do not read as 0.00 G.
    const QString macText = macs >= 1e9 ? QString::number(macs / 1e9, 'f', 2) + QStringLiteral(" G")
                            : macs >= 1e6
                                ? QString::number(macs / 1e6, 'f', 2) + QStringLiteral(" M")
                                : QString::fromStdString(pim::withThousands(static_cast<std::int64_t>(macs)));
    return ControlPanel::tr(
               "Network: %1 CONV and FC layers, %2 MACs, input %3, batch 1. Crossbar backends "
               "compile it whole (every weight in their arrays); the others run kernels.")
        .arg(layers.size())
        .arg(macText)
        .arg(input.join(QStringLiteral(" × ")));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}
}  // namespace

ControlPanel::ControlPanel(QWidget* parent) : QWidget(parent) {
  m_backend = new QComboBox;
  for (const pim::Backend& b : pim::builtinBackends().all()) {
    m_backend->addItem(QString::fromStdString(b.name));
    m_backend->setItemData(m_backend->count() - 1, QString::fromStdString(b.description), Qt::ToolTipRole);
  }
  // As the kernel's below: the longest backend name (crossbar-arch-a-phys) does not widen the panel.
  m_backend->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_backend->setMinimumContentsLength(8);
  m_kernel = new QComboBox;
  for (const pim::LibraryKernel& k : pim::KernelLibrary::builtin().entries()) {
    m_kernel->addItem(QString::fromStdString(k.name), QString::fromStdString(k.name));
    m_kernel->setItemData(m_kernel->count() - 1, QString::fromStdString(k.summary), Qt::ToolTipRole);
  }
  addNetworkItems(m_kernel);
  // The longest name does not set the panel's width (the list pops up as wide as it needs).
  m_kernel->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_kernel->setMinimumContentsLength(4);
  auto* open = new QToolButton;
  open->setText(tr("DSL…"));
  open->setToolTip(tr("Open a kernel DSL file"));
  auto* kernelRow = new QHBoxLayout;
  kernelRow->addWidget(m_kernel, 1);
  kernelRow->addWidget(open);
  m_dtype = new QComboBox;
  m_dtype->setObjectName(QStringLiteral("elementType"));
  m_dtype->addItem(tr("as declared"), QString());
  for (const char* t : {"f16", "bf16", "f32", "f64", "i8", "i32", "i64"})
    m_dtype->addItem(QString::fromLatin1(t), QString::fromLatin1(t));
  m_dtype->setToolTip(
      tr("Every tensor of the kernel in this element type (UPMEM has no 16-bit float: run it as i32, i64, "
         "f32 or f64)"));
  m_kernelSummary = new QLabel;
  m_kernelSummary->setWordWrap(true);
  m_kernelSummary->setStyleSheet(QStringLiteral("color: palette(mid);"));

  auto* problem = new QGroupBox(tr("Problem"));
  auto* pf = new QFormLayout(problem);
  m_problemForm = pf;
  pf->addRow(tr("Backend"), m_backend);
  pf->addRow(tr("Kernel"), kernelRow);
  pf->addRow(m_kernelSummary);
  pf->addRow(tr("Element type"), m_dtype);
  m_dimsBox = new QWidget;
  m_dimsForm = new QFormLayout(m_dimsBox);
  m_dimsForm->setContentsMargins(0, 0, 0, 0);
  pf->addRow(m_dimsBox);
  m_resident = new QLineEdit;
  m_resident->setObjectName(QStringLiteral("residentTensors"));
  m_resident->setPlaceholderText(tr("none: every tensor streamed"));
  pf->addRow(tr("Resident tensors"), m_resident);
  m_dimsError = new QLabel;
  m_dimsError->setObjectName(QStringLiteral("dimensionError"));
  m_dimsError->setWordWrap(true);
  m_dimsError->setStyleSheet(QStringLiteral("color: #a02828;"));
  m_dimsError->hide();
  pf->addRow(m_dimsError);

  QGroupBox* search = makeSearchBox();

  m_explore = new QPushButton(tr("Explore (F5)"));
  m_explore->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel (Esc)"));
  m_cancel->setEnabled(false);
  m_explore->setToolTip(
      tr("Generate, prune, predict and simulate the problem above (F5); disabled while the "
         "banner says it cannot run"));
  m_cancel->setToolTip(tr("Stop the run (Esc), keeping every draft evaluated so far"));
  m_backend->setToolTip(tr("The PIM hardware; each backend's description is on its item"));
  m_kernel->setToolTip(
      tr("A library kernel, a DSL file opened with DSL…, or a shipped network (compiled whole on crossbar "
         "backends)"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_explore);
  buttons->addWidget(m_cancel);

  // The form scrolls (it is taller than the room a 1280x800 screen leaves it, and grows with the kernel's
  // dimensions); the buttons below it stay in view.
  auto* form = new QWidget;
  auto* formLayout = new QVBoxLayout(form);
  formLayout->setContentsMargins(0, 0, 0, 0);
  formLayout->addWidget(problem);
  formLayout->addWidget(search);
  formLayout->addStretch();
  auto* scroll = new QScrollArea;
  scroll->setWidget(form);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // As wide as the form needs beside a vertical scroll bar: only the height gives way.
  scroll->setMinimumWidth(form->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(scroll, 1);
  layout->addLayout(buttons);

  connect(m_kernel, &QComboBox::currentIndexChanged, this, [this] {
    if (!isKernelFileItem(m_kernel)) m_kernelFile.clear();
    rebuildDims({});
  });
  connect(open, &QToolButton::clicked, this, &ControlPanel::openKernelRequested);
  connect(m_explore, &QPushButton::clicked, this, &ControlPanel::exploreRequested);
  auto changed = [this] {
    if (!m_applying) emit configChanged();
  };
  connect(m_backend, &QComboBox::currentIndexChanged, this, [this] {
    showReadSettings();
    validateDims();
  });
  connect(m_backend, &QComboBox::currentIndexChanged, this, changed);
  connect(m_kernel, &QComboBox::currentIndexChanged, this, changed);  // after rebuildDims (connected first)
  connect(m_dtype, &QComboBox::currentIndexChanged, this, changed);
  connect(m_strategy, &QComboBox::currentIndexChanged, this, changed);
  connect(m_model, &QComboBox::currentIndexChanged, this, changed);
  connect(m_timing, &QComboBox::currentIndexChanged, this, changed);
  for (QCheckBox* box : m_rules) connect(box, &QCheckBox::toggled, this, changed);
  for (QCheckBox* box : {m_staged, m_groupCommands}) connect(box, &QCheckBox::toggled, this, changed);
  connect(m_resident, &QLineEdit::textChanged, this, [this, changed] {
    validateDims();
    changed();
  });
  connect(m_cancel, &QPushButton::clicked, this, &ControlPanel::cancelRequested);
  setConfig(SessionConfig{});
}

// Strategies and prune rules come from their registries, so a registered one appears here by itself.
QGroupBox* ControlPanel::makeSearchBox() {
  auto* search = new QGroupBox(tr("Search"));
  auto* sf = new QVBoxLayout(search);
  m_strategy = new QComboBox;
  for (const pim::StrategyInfo& s : pim::StrategyRegistry::builtin().all()) {
    m_strategy->addItem(QString::fromStdString(s.name), QString::fromStdString(s.name));
    m_strategy->setItemData(m_strategy->count() - 1, QString::fromStdString(s.description), Qt::ToolTipRole);
  }
  m_model = new QComboBox;
  m_model->addItem(tr("PIMScope"), QStringLiteral("pimscope"));
  m_model->addItem(tr("DCC artifact (kernel)"), QStringLiteral("dcc-kernel"));
  m_model->addItem(tr("DCC artifact (inference)"), QStringLiteral("dcc-inference"));
  m_model->setToolTip(
      tr("Who labels a draft: PIMScope's model, or DCC's public artifact reproduced on hbm-pim and attacc "
         "(one stack, its rounding and per-bank command issue; inference mode skips the host's input read)"));
  auto* strategyRow = new QFormLayout;
  m_strategyForm = strategyRow;
  strategyRow->addRow(tr("Strategy"), m_strategy);
  strategyRow->addRow(tr("Model"), m_model);
  m_timing = makeTimingCombo();
  // Its labels are long; the dock keeps its width (the window fits 1,280 pixels) and the popup shows them.
  m_timing->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_timing->setMinimumContentsLength(8);
  m_timing->setToolTip(tr("How the crossbar profiler times a compiled layer (crossbar backends)"));
  strategyRow->addRow(tr("Timing"), m_timing);
  sf->addLayout(strategyRow);
  const pim::PruneRuleRegistry& rules = pim::PruneRuleRegistry::builtin();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const pim::IPruneRule& rule = rules.at(i);
    auto* box = new QCheckBox(
        tr("Rule %1: %2").arg(rule.number()).arg(QString::fromStdString(std::string(rule.name()))));
    box->setToolTip(QString::fromStdString(std::string(rule.summary())));
    box->setChecked(true);
    sf->addWidget(box);
    m_rules.push_back(box);
  }
  m_staged = new QCheckBox(tr("Optimizer I: staged rearrangement"));
  m_groupCommands = new QCheckBox(tr("Optimizer II: group commands"));
  m_staged->setChecked(true);
  m_groupCommands->setChecked(true);
  m_strategy->setToolTip(
      tr("How drafts are chosen for simulation; each strategy's description is on its item"));
  m_staged->setToolTip(
      tr("DCC 4.3 pass I: stage host<->PIM copies through on-chip memory so that every channel "
         "reads and writes at once (off: the host copies core by core)"));
  m_groupCommands->setToolTip(
      tr("DCC 4.3 pass II: one broadcast command per PIM group over tiles padded to the "
         "group's largest (off: one command per bank)"));
  sf->addWidget(m_staged);
  sf->addWidget(m_groupCommands);
  return search;
}

void ControlPanel::rebuildDims(const QString& shape) {
  for (auto& [name, box] : m_dims) {
    m_dimsForm->removeRow(box);
  }
  m_dims.clear();
  m_dimsKernel.reset();
  const QString network = selectedNetwork(m_kernel);
  m_dtype->setEnabled(network.isEmpty());  // a network runs at the accelerator's own precision
  showReadSettings();                      // and has no residency row
  if (!network.isEmpty()) {
    m_kernelSummary->setText(networkSummary(network));
    describeResidency();
    validateDims();
    return;
  }
  try {
    m_dimsKernel = kernelFor(m_kernel->currentData().toString(), m_kernelFile);
  } catch (const std::exception& e) {
    m_kernelSummary->setText(QString::fromStdString(e.what()));
    describeResidency();
    validateDims();
    return;
  }
  const pim::Kernel& k = *m_dimsKernel;
  m_kernelSummary->setText(QString::fromStdString(k.description));
  {
    // Each kernel starts from what it declares (gemv: W); setConfig then puts back a saved list.
    const QSignalBlocker block(m_resident);
    m_resident->setText(QString::fromStdString(residentText(k, std::nullopt)));
  }
  describeResidency();
  // A saved or typed shape comes back as it was written, valid or not; the kernel's defaults fill the rest.
  QStringList given = shape.split(QLatin1Char(','), Qt::SkipEmptyParts);
  for (std::size_t i = 0; i < k.dims.size(); ++i) {
    const QString name = QString::fromStdString(k.dims[i]);
    QString text = QString::number(k.dimDefaults[i].value_or(1));
    for (const QString& item : given) {
      const auto eq = item.indexOf(QLatin1Char('='));
      if (eq > 0 && item.left(eq).trimmed() == name) text = item.mid(eq + 1).trimmed();
    }
    auto* field = new QLineEdit(text);
    field->setObjectName(QStringLiteral("dim_") + name);
    field->setToolTip(
        tr("Size of dimension %1: a whole number from 1 to 2^40 (1,099,511,627,776), as the CLI's "
           "-d; group separators (4,096 or 4 096) are allowed")
            .arg(name));
    m_dimsForm->addRow(name, field);
    m_dims.emplace_back(name, field);
    connect(field, &QLineEdit::textChanged, this, [this] {
      validateDims();
      if (!m_applying) emit configChanged();
    });
  }
  validateDims();
}

namespace {
/// A field's text as the engine reads a size: group separators (",", " ", "_") dropped, nothing else changed.
QString sizeText(const QLineEdit* field) {
  QString t = field->text().trimmed();
  t.remove(QLatin1Char(',')).remove(QLatin1Char(' ')).remove(QLatin1Char('_'));
  return t;
}
}  // namespace

void ControlPanel::validateDims() {
  QString first;
  for (const auto& [name, field] : m_dims) {
    QString error;
    if (m_dimsKernel) {
      try {
        pim::parseShape(*m_dimsKernel, (name + QLatin1Char('=') + sizeText(field)).toStdString());
      } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
      }
    }
    field->setStyleSheet(error.isEmpty() ? QString()
                                         : QStringLiteral("QLineEdit { border: 2px solid #c03030; }"));
    field->setProperty("inputError", error);
    if (first.isEmpty()) first = error;
  }
  if (const QString e = validateResident(); first.isEmpty()) first = e;
  m_dimsError->setText(first);
  m_dimsError->setVisible(!first.isEmpty());
}

void ControlPanel::showReadSettings() {
  pim::SearchSettings& reads = m_reads;
  reads = {};  // an unknown backend (a window state being restored) shows everything
  try {
    reads =
        pim::targetOf(pim::builtinBackends().get(m_backend->currentText().toStdString())).searchSettings();
  } catch (const std::exception&) {
  }
  // A network has no tensors of its own to keep resident: the row goes with it.
  m_problemForm->setRowVisible(m_resident, reads.residency && selectedNetwork(m_kernel).isEmpty());
  m_strategyForm->setRowVisible(m_model, reads.labelModels);
  m_strategyForm->setRowVisible(m_timing, reads.crossbarTiming);
  for (QCheckBox* box : m_rules) box->setVisible(reads.pruneRules);
  m_staged->setVisible(reads.dccLowering);
  m_groupCommands->setVisible(reads.dccLowering);
}

QString ControlPanel::validateResident() {
  QString error;
  if (m_dimsKernel && m_reads.residency) {
    try {
      residencyFor(*m_dimsKernel, m_resident->text().toStdString());
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
  }
  m_resident->setStyleSheet(error.isEmpty() ? QString()
                                            : QStringLiteral("QLineEdit { border: 2px solid #c03030; }"));
  m_resident->setProperty("inputError", error);
  return error;
}

void ControlPanel::describeResidency() {
  QString tensors;
  if (m_dimsKernel) {
    QStringList names;
    for (const pim::Tensor& t : m_dimsKernel->tensors)
      if (t.role != pim::TensorRole::Temp) names << QString::fromStdString(t.name);
    const QString declared = QString::fromStdString(residentText(*m_dimsKernel, std::nullopt));
    tensors = tr("Kernel %1 has %2; it declares %3.<br>")
                  .arg(QString::fromStdString(m_dimsKernel->name), names.join(QStringLiteral(", ")),
                       declared.isEmpty() ? tr("every tensor streamed") : tr("%1 resident").arg(declared));
  }
  m_resident->setToolTip(
      tr("%1Tensors kept in the banks between calls, comma-separated (the CLI's --resident/--streamed). A "
         "<b>resident</b> tensor is placed once in the draft's own bank layout: a one-time preload, shown in "
         "the draft's details and not counted in its time. A <b>streamed</b> tensor (every one not listed) "
         "is moved from and to the host layout on every call. Empty: every tensor streamed.")
          .arg(tensors));
}

QString ControlPanel::inputError() const {
  for (const auto& [name, field] : m_dims)
    if (const QString e = field->property("inputError").toString(); !e.isEmpty()) return e;
  return m_resident->property("inputError").toString();
}

QLineEdit* ControlPanel::dimensionField(const QString& name) const {
  for (const auto& [n, field] : m_dims)
    if (n == name) return field;
  return nullptr;
}

SessionConfig ControlPanel::config() const {
  SessionConfig c;
  c.backend = m_backend->currentText().toStdString();
  c.kernel = libraryKernelName(m_kernel).toStdString();
  c.kernelFile = m_kernelFile.toStdString();
  c.network = selectedNetwork(m_kernel).toStdString();
  QStringList shape;
  for (const auto& [name, field] : m_dims) shape << name + QLatin1Char('=') + sizeText(field);
  c.shape = shape.join(QLatin1Char(',')).toStdString();
  c.dtype = m_dtype->currentData().toString().toStdString();
  // Always the list shown, even when it is what the kernel declares: what the field says is what runs.
  c.resident = m_resident->text().trimmed().toStdString();
  c.strategy = m_strategy->currentData().toString().toStdString();
  c.rules.clear();
  for (const QCheckBox* box : m_rules) c.rules.push_back(box->isChecked());
  c.stagedRearrangement = m_staged->isChecked();
  c.groupCommands = m_groupCommands->isChecked();
  c.model = pim::parseLabelModel(m_model->currentData().toString().toStdString())
                .value_or(pim::LabelModel::PimScope);
  // A hidden Model box keeps its choice for the backends that read it; this one labels with PIMScope's.
  if (!m_reads.labelModels) c.model = pim::LabelModel::PimScope;
  c.crossbarTiming = m_reads.crossbarTiming ? selectedTiming(m_timing) : pim::xbar::TimingModel::PimcompNn;
  return c;
}

void ControlPanel::setConfig(const SessionConfig& c) {
  const bool outer = !m_applying;
  m_applying = true;
  m_backend->setCurrentText(QString::fromStdString(c.backend));
  showReadSettings();  // also when the backend was already current (no index change)
  if (!c.network.empty()) {
    m_kernelFile.clear();
    const QSignalBlocker block(m_kernel);
    m_kernel->setCurrentIndex(std::max(0, networkItemIndex(m_kernel, QString::fromStdString(c.network))));
  } else if (!c.kernelFile.empty()) {
    setKernelFile(QString::fromStdString(c.kernelFile));
  } else {
    m_kernelFile.clear();
    const QSignalBlocker block(m_kernel);
    m_kernel->setCurrentIndex(std::max(0, m_kernel->findData(QString::fromStdString(c.kernel))));
  }
  rebuildDims(QString::fromStdString(c.shape));
  m_dtype->setCurrentIndex(std::max(0, m_dtype->findData(QString::fromStdString(c.dtype))));
  if (c.resident) m_resident->setText(QString::fromStdString(*c.resident));  // else rebuildDims's default
  m_strategy->setCurrentIndex(std::max(0, m_strategy->findData(QString::fromStdString(c.strategy))));
  for (std::size_t i = 0; i < m_rules.size(); ++i) m_rules[i]->setChecked(i < c.rules.size() && c.rules[i]);
  m_staged->setChecked(c.stagedRearrangement);
  m_groupCommands->setChecked(c.groupCommands);
  m_model->setCurrentIndex(
      std::max(0, m_model->findData(QString::fromStdString(std::string(pim::labelModelName(c.model))))));
  selectTiming(m_timing, c.crossbarTiming);
  if (outer) m_applying = false;
}

bool ControlPanel::setKernelFile(const QString& path, QString* error) {
  try {
    pim::Kernel k = pim::loadKernelFile(path.toStdString());
    m_kernelFile = path;
    const QSignalBlocker block(m_kernel);
    selectKernelFileItem(
        m_kernel, QFileInfo(path).fileName() + QStringLiteral(" (") + QString::fromStdString(k.name) + ')',
        path);
    rebuildDims({});
    if (!m_applying) emit configChanged();  // the signal blocker above silenced the combo box
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void ControlPanel::setRunning(bool running) {
  m_running = running;
  m_explore->setEnabled(!m_running && m_allowed);
  m_cancel->setEnabled(running);
}

void ControlPanel::setExploreAllowed(bool allowed) {
  m_allowed = allowed;
  m_explore->setEnabled(!m_running && m_allowed);
}

}  // namespace pimgui
