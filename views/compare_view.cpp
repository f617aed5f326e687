// SPDX-License-Identifier: Apache-2.0
#include "views/compare_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <set>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
#include "views/breakdown_chart.h"
#include "views/compare_runner.h"
#include "views/elided_label.h"
#include "views/kernel_combo.h"
#include "views/residency_input.h"
#include "views/run_progress.h"

namespace pimgui {

namespace {

constexpr int kResultRole = Qt::UserRole;  // index into Comparison::results (column Backend)

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString microseconds(double ns) { return QString::number(ns / 1e3, 'f', 3); }

QString speedupText(double s) { return QString::number(s, 'f', 2) + QStringLiteral("×"); }

QString defaultShape(const pim::Kernel& k) {
  QStringList parts;
  for (std::size_t i = 0; i < k.dims.size(); ++i)
    parts << qs(k.dims[i]) + QLatin1Char('=') + QString::number(k.dimDefaults[i].value_or(1));
  return parts.join(QLatin1Char(','));
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

/// "1 backend", "3 backends".
QString backendsText(std::size_t n) {
  return n == 1 ? QObject::tr("1 backend") : QObject::tr("%1 backends").arg(n);
}

// "gemv[b=1,out=1024,in=1024] (W resident) on 2 backends", as the CLI's compare heading.
QString comparisonTitle(const std::string& kernel, const QString& shape, const std::string& resident,
                        std::size_t backends) {
  return QObject::tr("%1[%2]%3 on %4")
      .arg(qs(kernel), shape, resident.empty() ? QString() : QObject::tr(" (%1 resident)").arg(qs(resident)),
           backendsText(backends));
}

QTableWidgetItem* number(const QString& text, double value) {
  QTableWidgetItem* item = cell(text, Qt::AlignRight | Qt::AlignVCenter);
  item->setData(CompareView::ValueRole, value);
  return item;
}

/// One stacked bar on the common µs scale. Cycles are in each backend's own clock, so every phase is scaled
/// by the engine's time per cycle of this evaluation (timeNs / totalCycles); the bar then ends at timeNs.
BreakdownBar barOf(const pim::BackendResult& r) {
  const double nsPerCycle =
      r.eval.totalCycles > 0 ? r.eval.timeNs / static_cast<double>(r.eval.totalCycles) : r.eval.tCKns;
  BreakdownBar b =
      breakdownBar(qs(r.backend), pim::targetOf(pim::builtinBackends().get(r.backend)), r.eval, nsPerCycle);
  if (r.draft) b.draft = r.draft->id;
  return b;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent), m_runner(new CompareRunner(this)) {
  // Problem: kernel and shape, editable; loadProblem() copies them from the control panel.
  m_kernel = new QComboBox;
  for (const pim::LibraryKernel& k : pim::KernelLibrary::builtin().entries()) {
    m_kernel->addItem(qs(k.name), qs(k.name));
    m_kernel->setItemData(m_kernel->count() - 1, qs(k.summary), Qt::ToolTipRole);
  }
  m_shape = new QLineEdit;
  m_shape->setPlaceholderText(QStringLiteral("b=1,n=4096"));
  m_shape->setToolTip(tr("Dimension sizes, name=value separated by commas (defaults fill the rest)"));
  auto* problem = new QGroupBox(tr("Problem"));
  auto* pf = new QFormLayout(problem);
  pf->addRow(tr("Kernel"), m_kernel);
  pf->addRow(tr("Shape"), m_shape);

  // Backends: every registry backend; those that cannot run the kernel are disabled with the engine's reason.
  auto* backends = new QGroupBox(tr("Backends (2 to 4, or 1 against the GPU)"));
  auto* grid = new QGridLayout(backends);
  int row = 0;
  for (const pim::Backend& b : pim::builtinBackends().all()) {
    const QString name = qs(b.name);
    auto* box = new QCheckBox(name);
    // One line ending in "…" (the whole reason is the tooltip): wrapped, the crossbar backends' reasons ran
    // past the row's height and were cut mid-sentence.
    auto* reason = new ElidedLabel;
    reason->setStyleSheet(QStringLiteral("color: palette(mid);"));
    grid->addWidget(box, row / 2, (row % 2) * 2);
    grid->addWidget(reason, row / 2, (row % 2) * 2 + 1);
    ++row;
    m_backends[name] = box;
    m_reasons[name] = reason;
    connect(box, &QCheckBox::toggled, this, [this] {
      m_defaultChoice = false;  // a tick of the user's (programmatic ticks block the signal)
      updateChoice();
    });
  }
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
  m_hint = new QLabel;
  grid->addWidget(m_hint, (row + 1) / 2, 0, 1, 4);

  auto* run = new QGroupBox(tr("Baseline"));
  auto* rf = new QVBoxLayout(run);
  m_baseline = new QComboBox;
  m_baseline->setToolTip(tr("Speed-ups are this schedule's time divided by each backend's"));
  m_compare = new QPushButton(tr("Compare"));
  m_compare->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setEnabled(false);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_compare);
  buttons->addWidget(m_cancel);
  rf->addWidget(m_baseline);
  rf->addLayout(buttons);
  rf->addStretch();

  auto* top = new QHBoxLayout;
  top->addWidget(problem, 3);
  top->addWidget(backends, 5);
  top->addWidget(run, 2);

  m_progress = new RunProgress;  // the backend searched now, its n of N and time left
  // "gddr6-aim (2 of 4): simulating 57 of 64 · about 12 s left" on one line.
  m_progress->setMinimumWidth(m_progress->fontMetrics().horizontalAdvance(QStringLiteral(
                                  "gddr6-aim (2 of 4): simulating 1,000 of 1,000 · about 10 min 30 s left")) +
                              24);
  m_status = new QLabel(tr("Choose backends and press Compare."));
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(m_status, 1);
  statusRow->addWidget(m_progress);

  m_heading = new QLabel;
  m_heading->setWordWrap(true);
  m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_verdict = new QLabel;
  m_verdict->setWordWrap(true);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont big = m_verdict->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  m_verdict->setFont(big);
  m_verdict->setStyleSheet(QStringLiteral(
      "QLabel { background: #fff4e0; border: 1px solid #f28e2b; border-radius: 4px; padding: 6px; }"));
  m_verdict->setVisible(false);

  m_table = new QTableWidget(0, Speedup + 1);
  m_table->setHorizontalHeaderLabels({tr("Backend"), tr("Strategy"), tr("Best draft"), tr("Parts"),
                                      tr("Input rearr.\n(cycles)"), tr("Compute\n(cycles)"),
                                      tr("Output rearr.\n(cycles)"), tr("Time (µs)"), tr("Energy (µJ)"),
                                      tr("Speed-up")});
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(Parts, QHeaderView::Stretch);
  m_table->setToolTip(tr("Double-click a backend to open it with its best draft in the explorer"));
  m_open = new QPushButton(tr("Open in explorer"));
  m_open->setEnabled(false);
  m_open->setToolTip(tr("Load the selected backend and its best draft into the explorer window"));
  auto* tableBox = new QWidget;
  auto* tl = new QVBoxLayout(tableBox);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(m_table);
  auto* openRow = new QHBoxLayout;
  openRow->addWidget(new QLabel(tr("Double-click a row to drill into that backend.")), 1);
  openRow->addWidget(m_open);
  tl->addLayout(openRow);

  m_chart = new BreakdownChart;
  m_chart->setMinimumHeight(260);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(statusRow);
  layout->addWidget(m_heading);
  layout->addWidget(m_verdict);
  layout->addWidget(tableBox);
  layout->addWidget(m_chart, 1);  // the table is as tall as its rows (fitTable); the chart takes the rest

  m_tick = new QTimer(this);
  m_tick->setInterval(100);
  connect(m_tick, &QTimer::timeout, this, &CompareView::showElapsed);
  connect(m_kernel, &QComboBox::currentIndexChanged, this, [this] {
    onKernelChanged();
    try {
      m_shape->setText(defaultShape(currentKernel()));  // the old shape's names may not fit the new kernel
    } catch (const std::exception&) {
    }
  });
  connect(m_baseline, &QComboBox::currentIndexChanged, this, [this] {
    if (!m_restartOnBaseline) return;  // the list is being rebuilt
    updateHint();                      // one backend compares against the GPU, not against itself
    // The speed-ups are the engine's, relative to the pinned baseline: a new pin re-runs the comparison.
    if (m_shown && !running()) compare();
  });
  connect(m_compare, &QPushButton::clicked, this, &CompareView::compare);
  connect(m_cancel, &QPushButton::clicked, this, &CompareView::cancel);
  connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int r, int) { requestDrillDown(r); });
  connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
    const auto rows = m_table->selectionModel()->selectedRows();
    bool ok = false;
    if (!rows.isEmpty() && m_shown) {
      const int i = m_table->item(rows.front().row(), Backend)->data(kResultRole).toInt();
      ok = m_shown->results[static_cast<std::size_t>(i)].available;
    }
    m_open->setEnabled(ok);
  });
  connect(m_open, &QPushButton::clicked, this, [this] {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (!rows.isEmpty()) requestDrillDown(rows.front().row());
  });

  connect(m_runner, &CompareRunner::started, this, [this] { setBusy(true); });
  connect(m_runner, &CompareRunner::progressed, this, &CompareView::showElapsed);
  connect(m_runner, &CompareRunner::finished, this, [this](std::shared_ptr<const pim::Comparison> c) {
    setBusy(false);
    showComparison(std::move(c));
    m_status->setText(tr("Done in %1 s").arg(m_clock.elapsed() / 1e3, 0, 'f', 1));
    emit done();
  });
  connect(m_runner, &CompareRunner::failed, this, [this](const QString& message) {
    setBusy(false);
    clearResults();
    m_status->setText(tr("Error: %1").arg(message));
    emit done();
  });
  connect(m_runner, &CompareRunner::cancelled, this, [this] {
    setBusy(false);
    clearResults();
    m_status->setText(tr("Cancelled after %1 s").arg(m_clock.elapsed() / 1e3, 0, 'f', 1));
    emit done();
  });

  loadProblem(SessionConfig{});  // with the default choice, so Compare works straight away
  clearResults();
}

CompareView::~CompareView() { m_runner->stopAndWait(); }

void CompareView::loadProblem(const SessionConfig& c) {
  m_session = c;
  m_session.backendOverride.reset();  // the comparison is of registry backends
  const QSignalBlocker block(m_kernel);
  if (!c.kernelFile.empty()) {
    const QString path = qs(c.kernelFile);
    selectKernelFileItem(m_kernel, QFileInfo(path).fileName(), path);
  } else {
    m_kernel->setCurrentIndex(std::max(0, m_kernel->findData(qs(c.kernel))));
  }
  m_shape->setText(qs(c.shape));
  onKernelChanged();
}

std::string CompareView::kernelName() const { return libraryKernelName(m_kernel).toStdString(); }

std::string CompareView::kernelFile() const {
  // The DSL item keeps its path in the tool tip, so switching to a library kernel and back still works.
  return kernelName().empty() ? m_kernel->currentData(Qt::ToolTipRole).toString().toStdString()
                              : std::string();
}

pim::Kernel CompareView::currentKernel() const {
  pim::Kernel k = pim::resolveKernel(kernelName(), kernelFile());
  // The panel's element type: UPMEM runs integer and 32/64-bit float kernels only.
  if (const auto t = pim::parseDType(m_session.dtype)) k = pim::retyped(std::move(k), *t);
  return k;
}

void CompareView::showElapsed() {
  m_status->setText(tr("Comparing %1… %2 s").arg(m_what).arg(m_clock.elapsed() / 1e3, 0, 'f', 1));
  const pim::CompareProgress& p = m_runner->progress();
  if (!running()) return;
  if (p.name.empty()) {
    m_progress->showBusy(tr("starting"));
    return;
  }
  m_progress->showProgress(p.search, true,
                           tr("%1 (%2 of %3)").arg(qs(p.name)).arg(p.backend + 1).arg(p.backends));
}

void CompareView::onKernelChanged() {
  std::optional<pim::Kernel> k;
  QString error;
  try {
    k = currentKernel();
  } catch (const std::exception& e) {
    error = qs(e.what());
  }
  for (const pim::Backend& b : pim::builtinBackends().all()) {
    const QString name = qs(b.name);
    const QString why = k ? qs(pim::unsupportedReason(b, pim::compareKernel(b, *k))) : error;
    QCheckBox* box = m_backends.at(name);
    const QSignalBlocker block(box);
    box->setEnabled(why.isEmpty());
    if (!why.isEmpty()) box->setChecked(false);
    box->setToolTip(why.isEmpty() ? qs(b.description) : why);
    m_reasons.at(name)->setText(why);
    m_reasons.at(name)->setToolTip(why);
  }
  if (m_defaultChoice)
    chooseDefault();
  else
    updateChoice();
}

void CompareView::chooseDefault() {
  // Different hardware side by side first: a second backend of a family only when families run out.
  QStringList runnable;
  std::set<std::string> families;
  for (const bool repeat : {false, true})
    for (const pim::Backend& b : pim::builtinBackends().all()) {
      const QString name = qs(b.name);
      if (runnable.size() == 4 || !m_backends.at(name)->isEnabled() || runnable.contains(name)) continue;
      if (!repeat && !families.insert(b.family).second) continue;
      runnable << name;
    }
  for (auto& [name, box] : m_backends) {
    const QSignalBlocker block(box);
    box->setChecked(runnable.contains(name));
  }
  updateChoice();
}

void CompareView::choose(const QStringList& backends, const QString& baseline) {
  m_defaultChoice = false;
  for (auto& [name, box] : m_backends) {
    const QSignalBlocker block(box);
    box->setChecked(box->isEnabled() && backends.contains(name));
  }
  updateChoice();
  setBaseline(baseline);
}

void CompareView::setBaseline(const QString& baseline) {
  const int i = m_baseline->findData(baseline);
  if (i >= 0) m_baseline->setCurrentIndex(i);
}

QStringList CompareView::chosen() const {
  QStringList out;
  // Registry order, so the request does not depend on the order the boxes were ticked in.
  for (const pim::Backend& b : pim::builtinBackends().all()) {
    const QCheckBox* box = m_backends.at(qs(b.name));
    if (box->isEnabled() && box->isChecked()) out << qs(b.name);
  }
  return out;
}

QString CompareView::baseline() const {
  const QString b = m_baseline->currentData().toString();
  return b.isEmpty() ? QStringLiteral("gpu") : b;
}

bool CompareView::running() const { return m_runner->running(); }

QString CompareView::status() const { return m_status->text(); }

QCheckBox* CompareView::backendBox(const QString& name) const {
  const auto it = m_backends.find(name);
  return it == m_backends.end() ? nullptr : it->second;
}

void CompareView::updateChoice() {
  rebuildBaselines();  // first: a backend that was the baseline and is no longer chosen falls back to the GPU
  updateHint();
}

void CompareView::updateHint() {
  const int n = static_cast<int>(chosen().size());
  const bool ok = pim::backendCountError(options()).empty();
  m_hint->setText(ok ? tr("%1 chosen").arg(n)
                     : tr("%1 chosen: choose 2 to 4 backends, or 1 against the GPU baseline").arg(n));
  m_hint->setStyleSheet(ok ? QString() : QStringLiteral("color: #b03a2e;"));
  m_compare->setEnabled(ok && !running());
}

void CompareView::rebuildBaselines() {
  const QString current = m_baseline->currentData().toString();
  m_restartOnBaseline = false;
  m_baseline->clear();
  m_baseline->addItem(tr("GPU only"), QStringLiteral("gpu"));
  for (const QString& b : chosen()) m_baseline->addItem(b, b);
  setBaseline(current.isEmpty() ? QStringLiteral("gpu") : current);
  m_restartOnBaseline = true;
}

pim::CompareOptions CompareView::options() const {
  pim::CompareOptions o;
  for (const QString& b : chosen()) o.backends.push_back(b.toStdString());
  o.baseline = baseline().toStdString();
  o.search.eval = m_session.evalOptions();
  o.search.eval.keepUnitStats = false;  // the table and bars need totals only
  return o;
}

bool CompareView::compare() {
  const pim::CompareOptions o = options();
  if (!pim::backendCountError(o).empty()) return false;
  pim::Kernel k;
  try {
    k = currentKernel();
  } catch (const std::exception& e) {
    m_status->setText(tr("Error: %1").arg(qs(e.what())));
    return false;
  }
  // The panel's resident tensors while the kernel is the panel's (another kernel: what it declares).
  pim::CompareOptions run = o;
  const bool panelKernel = kernelName() == m_session.kernel && kernelFile() == m_session.kernelFile;
  try {
    run.residency = residencyFor(k, panelKernel ? m_session.resident : std::nullopt);
  } catch (const std::exception& e) {
    m_status->setText(tr("Error: %1").arg(qs(e.what())));
    return false;
  }
  m_ran = m_session;
  m_ran.kernel = kernelName();
  m_ran.kernelFile = kernelFile();
  m_ran.shape = m_shape->text().toStdString();
  if (!panelKernel) m_ran.resident.reset();
  m_what = comparisonTitle(k.name, m_shape->text(), pim::residentNames(k, *run.residency), o.backends.size());
  m_clock.start();
  m_runner->start(std::move(k), m_shape->text().toStdString(), run);
  return true;
}

void CompareView::cancel() { m_runner->cancel(); }

void CompareView::setBusy(bool busy) {
  if (!busy) m_progress->hide();
  m_cancel->setEnabled(busy);
  m_compare->setEnabled(!busy && pim::backendCountError(options()).empty());
  if (busy) {
    m_tick->start();
    showElapsed();
  } else {
    m_tick->stop();
  }
}

void CompareView::clearResults() {
  m_shown.reset();
  m_table->setRowCount(0);
  m_chart->setBars({}, std::nullopt);
  m_heading->setText(tr("No comparison yet."));
  m_verdict->clear();
  m_verdict->setVisible(false);
  m_open->setEnabled(false);
  fitTable();
}

void CompareView::showComparison(std::shared_ptr<const pim::Comparison> c) {
  clearResults();
  m_shown = c;
  const bool gpu = c->baseline == "gpu";
  m_what = comparisonTitle(c->kernel, qs(c->shape), c->resident, c->results.size());
  m_heading->setText(tr("<b>%1[%2]</b>%3 on %4 · baseline <b>%5</b>: %6 µs (%7)")
                         .arg(qs(c->kernel).toHtmlEscaped(), qs(c->shape).toHtmlEscaped(),
                              c->resident.empty() ? tr(" (every tensor streamed)")
                                                  : tr(" (%1 resident)").arg(qs(c->resident).toHtmlEscaped()),
                              backendsText(c->results.size()))
                         .arg(gpu ? tr("GPU only") : qs(c->baseline).toHtmlEscaped(),
                              microseconds(c->baselineNs), qs(c->baselineSummary).toHtmlEscaped()));
  m_verdict->setText(qs(c->verdict));
  m_verdict->setVisible(true);

  m_table->setRowCount(static_cast<int>(c->results.size()));
  const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
  for (int i = 0; i < static_cast<int>(c->results.size()); ++i) {
    const pim::BackendResult& r = c->results[static_cast<std::size_t>(i)];
    QTableWidgetItem* name =
        cell(qs(r.backend) + (r.retyped ? tr(" as %1").arg(qs(r.elementType)) : QString()));
    name->setData(kResultRole, i);
    if (r.backend == c->baseline) {
      QFont bold = name->font();
      bold.setBold(true);
      name->setFont(bold);
      name->setText(name->text() + tr(" (baseline)"));
    }
    m_table->setItem(i, Backend, name);
    if (!r.available) {
      QTableWidgetItem* why = cell(tr("unavailable: %1").arg(qs(r.reason)));
      why->setForeground(grey);
      name->setForeground(grey);
      m_table->setItem(i, Strategy, why);
      m_table->setSpan(i, Strategy, 1, Speedup);
      continue;
    }
    const pim::Evaluation& e = r.eval;
    m_table->setItem(i, Strategy, cell(qs(r.strategy)));
    m_table->setItem(i, Draft, number(QString::number(r.draft->id), static_cast<double>(r.draft->id)));
    QTableWidgetItem* parts = cell(qs(r.draftLabel));
    QStringList perPart;
    for (std::size_t p = 0; p < r.partLabels.size() && p < r.draft->parts.size(); ++p) {
      perPart << tr("part %1: %2 groups × %3 cores, representative %4")
                     .arg(p)
                     .arg(r.draft->parts[p].groups)
                     .arg(r.draft->parts[p].cores)
                     .arg(qs(r.partLabels[p]));
    }
    parts->setToolTip(perPart.join(QLatin1Char('\n')));
    m_table->setItem(i, Parts, parts);
    for (int phase = 0; phase < 3; ++phase) {
      const auto cycles = static_cast<qlonglong>(e.cycles[static_cast<std::size_t>(phase)]);
      m_table->setItem(i, InCycles + phase,
                       number(QStringLiteral("%L1").arg(cycles), static_cast<double>(cycles)));
    }
    m_table->setItem(i, TimeUs, number(microseconds(e.timeNs), e.timeNs));
    m_table->setItem(i, Energy, number(QStringLiteral("%L1").arg(e.energyPj / 1e6, 0, 'f', 2), e.energyPj));
    QTableWidgetItem* s =
        number(r.speedup ? speedupText(*r.speedup) : QStringLiteral("–"), r.speedup.value_or(0));
    if (r.speedup && *r.speedup > 1.0) s->setForeground(QColor(0x2e, 0x7d, 0x32));
    m_table->setItem(i, Speedup, s);
  }

  // Bars: the baseline first (the reference the chart's speed-ups are written against), then the other
  // available backends in the engine's order (fastest first). Unavailable backends have no bar.
  std::vector<BreakdownBar> bars;
  if (gpu) {
    BreakdownBar g;
    g.label = tr("GPU only");
    g.totalOnly = true;
    g.totalNs = c->baselineNs;
    bars.push_back(g);
  }
  for (const pim::BackendResult& r : c->results) {
    if (r.available && r.backend == c->baseline) bars.push_back(barOf(r));
  }
  for (const pim::BackendResult& r : c->results) {
    if (r.available && r.backend != c->baseline) bars.push_back(barOf(r));
  }
  m_chart->setBars(std::move(bars), 0);
  fitTable();
}

void CompareView::fitTable() {
  // At most four rows: the table takes what they need and the chart gets the rest of the height.
  int h = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth() + 2;
  for (int r = 0; r < std::max(2, m_table->rowCount()); ++r)
    h += r < m_table->rowCount() ? m_table->rowHeight(r) : m_table->verticalHeader()->defaultSectionSize();
  m_table->setMaximumHeight(h);
}

void CompareView::requestDrillDown(int row) {
  if (!m_shown || row < 0 || row >= m_table->rowCount()) return;
  const int i = m_table->item(row, Backend)->data(kResultRole).toInt();
  const pim::BackendResult& r = m_shown->results[static_cast<std::size_t>(i)];
  if (!r.available || !r.draft) return;
  SessionConfig c = m_ran;  // the problem as it was compared, even if the form was edited since
  c.backend = r.backend;
  c.shape = m_shown->shape;
  // Explore the way the comparison found the draft, so the explorer's best is this draft too.
  c.strategy = r.strategy;
  c.maxSimulations = r.strategy == "predictor" ? 0 : options().search.maxSimulations;
  emit drillDownRequested(c, r.draft->id);
}

}  // namespace pimgui
