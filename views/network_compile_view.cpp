// SPDX-License-Identifier: Apache-2.0
#include "views/network_compile_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <tuple>

#include "engine/crossbar/replication.h"
#include "engine/kernel/onnx_network.h"
#include "engine/target/crossbar/layer_evaluation.h"
#include "engine/target/registry.h"
#include "views/core_map.h"
#include "views/network_compare_panel.h"
#include "views/stage_chart.h"
#include "views/timing_combo.h"

namespace pimgui {
namespace {

/// A number cell that sorts by value (QTableWidgetItem compares display text); empty, and sorted first, when
/// there is none.
class NumberItem : public QTableWidgetItem {
 public:
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole + 1).toDouble() < other.data(Qt::UserRole + 1).toDouble();
  }
};

QTableWidgetItem* numberItem(std::optional<double> v, int decimals) {
  auto* item = new NumberItem;
  if (v) {
    item->setData(Qt::DisplayRole, decimals >= 0 ? QString::number(*v, 'f', decimals) : QString::number(*v));
    item->setData(Qt::UserRole + 1, *v);
  }
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

/// The unfolding asked for; after "auto", the formats the greedy picked.
QString unfoldingText(const CompiledCandidate& c) {
  QString text = QString::fromStdString(c.unfolding);
  if (c.unfolding != "auto" || !c.result) return text;
  QStringList picked;
  for (const pim::CompiledLayer& l : c.result->layers)
    if (l.op == "CONV" && !picked.contains(QString::fromStdString(l.unfolding)))
      picked << QString::fromStdString(l.unfolding);
  return text + QStringLiteral(": ") + picked.join(QStringLiteral(" + "));
}

/// A candidate's place on the Pareto plot.
struct ParetoPoint {
  double timeUs, energyMj;
  QString label;  // empty for a GA finalist (drawn, not named)
};

/// Points sorted by (time, energy) with those at the same place made one, its labels joined: candidates
/// with equal figures (the same compile asked twice, two methods that agree) would otherwise print their
/// labels over each other.
std::vector<ParetoPoint> mergedCoincident(std::vector<ParetoPoint> sorted) {
  std::vector<ParetoPoint> out;
  for (ParetoPoint& p : sorted) {
    if (!out.empty() && out.back().timeUs == p.timeUs && out.back().energyMj == p.energyMj) {
      if (!out.back().label.split(QStringLiteral(" = ")).contains(p.label))
        out.back().label += QStringLiteral(" = ") + p.label;
      continue;
    }
    out.push_back(std::move(p));
  }
  return out;
}

/// Whether each label (points sorted by time) sits above its point. Neighbours in time alternate, so close
/// candidates stay readable; of two that are close on both log axes, the higher one's label goes above and
/// the lower one's below, so the two labels move apart rather than into each other.
std::vector<bool> labelsAbove(const std::vector<ParetoPoint>& sorted) {
  std::vector<bool> above(sorted.size()), paired(sorted.size(), false);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    above[i] = i % 2 == 0;
    const double higher = std::max(sorted[i].energyMj, sorted[i - (i > 0)].energyMj),
                 lower = std::min(sorted[i].energyMj, sorted[i - (i > 0)].energyMj);
    if (i == 0 || sorted[i].timeUs >= sorted[i - 1].timeUs * 1.5 || higher >= lower * 1.25) continue;
    above[i] = sorted[i].energyMj >= sorted[i - 1].energyMj;
    if (!paired[i - 1]) above[i - 1] = !above[i];  // a point already paired with its other neighbour stays
    paired[i] = true;
  }
  return above;
}

std::optional<double> micro(std::optional<double> ns) {
  if (!ns) return std::nullopt;
  return *ns / 1000.0;
}

}  // namespace

NetworkCompileView::NetworkCompileView(QWidget* parent) : QWidget(parent) {
  m_runner = new NetworkCompileRunner(this);
  QLayout* controls = buildControls();
  m_status = new QLabel(tr("Choose a network and a crossbar backend, then Compile"));
  m_status->setWordWrap(true);

  QWidget* results = buildResults();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(m_status);
  layout->addWidget(results, 1);
  connectSignals();
  redrawPareto();
}

QLayout* NetworkCompileView::buildControls() {
  m_network = new QComboBox;
  for (const std::string& name : pim::builtinNetworkNames())
    m_network->addItem(QString::fromStdString(name), QString::fromStdString(pim::builtinNetworkPath(name)));
  m_network->setCurrentIndex(std::max(0, m_network->findText(QStringLiteral("resnet18"))));
  m_network->setToolTip(tr("A shipped network, or one opened from a node-list file (Open…)"));
  m_open = new QPushButton(tr("Open…"));
  m_backend = new QComboBox;
  for (const pim::Backend& b : pim::builtinBackends().all())
    if (pim::compilesNetworks(b)) {
      m_backend->addItem(QString::fromStdString(b.name));
      m_backend->setItemData(m_backend->count() - 1, QString::fromStdString(b.description), Qt::ToolTipRole);
    }
  m_backend->setCurrentIndex(std::max(0, m_backend->findText(QStringLiteral("crossbar-pimcomp"))));
  m_mode = new QComboBox;
  m_mode->addItem(tr("HT: batch pipeline (throughput)"), QStringLiteral("ht"));
  m_mode->addItem(tr("LL: element pipeline (latency)"), QStringLiteral("ll"));
  m_timing = makeTimingCombo();
  m_unfolding = new QComboBox;
  m_unfolding->addItem(tr("im2col (IK2,O,1)"), QStringLiteral("im2col"));
  m_unfolding->addItem(QStringLiteral("I,O,K2"), QStringLiteral("I,O,K2"));
  m_unfolding->addItem(QStringLiteral("IK,O,K"), QStringLiteral("IK,O,K"));
  m_unfolding->addItem(QStringLiteral("I,OK2,1"), QStringLiteral("I,OK2,1"));
  m_unfolding->addItem(QStringLiteral("IK,OK,1"), QStringLiteral("IK,OK,1"));
  m_unfolding->addItem(tr("auto (greedy per layer)"), QStringLiteral("auto"));
  m_unfolding->setToolTip(
      tr("How each CONV layer's weights unfold into matrices (tcad Table IV). im2col is PIMCOMP-NN's only "
         "format. I,OK2,1 and IK,OK,1 spread an MVM's products over several output pixels, which the LL "
         "schedule adds into per-pixel accumulators on a core and the HT schedule into per-pixel sums (in "
         "global memory where a pixel's windows run on two cores); neither runs them when a band is wider "
         "than a core. auto takes the greedy's best "
         "of the formats the layer can run, and the row's note counts the layers where the greedy over "
         "all five would have picked another"));
  auto* methods = new QHBoxLayout;
  methods->addWidget(new QLabel(tr("Replication:")));
  for (const std::string& name : pim::compileMethodNames()) {
    auto* box = new QCheckBox(QString::fromStdString(name));
    box->setChecked(name != pim::kGaMethod);  // the search takes seconds; the fixed rules are instant
    m_methods.push_back(box);
    methods->addWidget(box);
  }
  m_compile = new QPushButton(tr("Compile"));
  m_compile->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setEnabled(false);

  auto* row1 = new QHBoxLayout;
  row1->addWidget(new QLabel(tr("Network:")));
  row1->addWidget(m_network);
  row1->addWidget(m_open);
  row1->addSpacing(12);
  row1->addWidget(new QLabel(tr("Backend:")));
  row1->addWidget(m_backend);
  row1->addSpacing(12);
  row1->addWidget(new QLabel(tr("Mode:")));
  row1->addWidget(m_mode);
  row1->addWidget(new QLabel(tr("Timing:")));
  row1->addWidget(m_timing);
  row1->addWidget(new QLabel(tr("Unfolding:")));
  row1->addWidget(m_unfolding);
  row1->addStretch(1);
  auto* row2 = new QHBoxLayout;
  row2->addLayout(methods);
  row2->addStretch(1);
  row2->addWidget(m_compile);
  row2->addWidget(m_cancel);
  auto* rows = new QVBoxLayout;
  rows->addLayout(row1);
  rows->addLayout(row2);
  return rows;
}

QWidget* NetworkCompileView::buildResults() {
  m_table = new QTableWidget(0, kColumns);
  m_table->setHorizontalHeaderLabels({tr("Replication"), tr("Mode"), tr("Timing"), tr("Unfolding"),
                                      tr("Period µs"), tr("Samples/s"), tr("1st batch µs"), tr("Latency µs"),
                                      tr("Energy mJ"), tr("Crossbars"), tr("IGs"), tr("MVMs"), tr("Time s"),
                                      tr("Note")});
  m_table->horizontalHeaderItem(kCrossbars)->setToolTip(tr("Crossbars the layout uses"));
  m_table->horizontalHeaderItem(kSeconds)->setToolTip(tr("Seconds the compile took"));
  m_table->horizontalHeaderItem(kFirstBatch)
      ->setToolTip(tr("The first sample's latency in the batch pipeline: pipeline stages x period"));
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSortingEnabled(true);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(kNote, QHeaderView::Stretch);

  m_coreMap = new CoreMap;
  m_pipeline = new StageChart;
  m_pipeline->setEmptyNote(tr("Compile a network (Compile) and select a row to see its layers"));
  m_pareto = new QCustomPlot;
  m_pareto->setMinimumSize(320, 220);
  // Top left: the corner a time-energy trade-off leaves empty (fast and costly is rare).
  m_pareto->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  m_tabs = new QTabWidget;
  m_tabs->addTab(m_coreMap, tr("Cores"));
  m_tabs->addTab(m_pipeline, tr("Layer pipeline"));
  m_tabs->addTab(m_pareto, tr("Pareto"));
  m_compareBackends =
      new NetworkComparePanel([this] { return m_network->currentData().toString().toStdString(); },
                              [this] { return selectedTiming(m_timing); });
  m_tabs->addTab(m_compareBackends, tr("Compare backends"));
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_table);
  split->addWidget(m_tabs);
  split->setStretchFactor(1, 3);
  return split;
}

void NetworkCompileView::connectSignals() {
  connect(m_compareBackends, &NetworkComparePanel::done, this, &NetworkCompileView::done);
  connect(m_compile, &QPushButton::clicked, this, &NetworkCompileView::compile);
  connect(m_cancel, &QPushButton::clicked, this, &NetworkCompileView::cancel);
  connect(m_open, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a network"), QString(),
                                                      tr("Networks (*.json *.onnx);;All files (*)"));
    if (!path.isEmpty()) openNetworkFile(path);
  });
  connect(m_table, &QTableWidget::itemSelectionChanged, this, &NetworkCompileView::showSelected);
  connect(m_runner, &NetworkCompileRunner::progressed, m_status, &QLabel::setText);
  connect(m_runner, &NetworkCompileRunner::stopping, this, [this] {
    m_cancel->setEnabled(false);
    m_status->setText(tr("Stopping… (a genetic search keeps its best so far)"));
  });
  connect(m_runner, &NetworkCompileRunner::compiled, this, &NetworkCompileView::addCandidate);
  connect(m_runner, &NetworkCompileRunner::finished, this, [this](bool cancelled) {
    setRunning(false);
    const int rows = m_table->rowCount();
    m_status->setText(cancelled ? tr("Cancelled: %1 candidate(s) kept").arg(rows)
                                : tr("Done: %1 candidate(s)").arg(rows));
    emit done();
  });
}

NetworkCompileView::~NetworkCompileView() { m_runner->stopAndWait(); }

QCheckBox* NetworkCompileView::methodBox(const QString& method) const {
  for (QCheckBox* b : m_methods)
    if (b->text() == method) return b;
  return nullptr;
}

bool NetworkCompileView::running() const { return m_runner->running() || m_compareBackends->running(); }

bool NetworkCompileView::openNetworkFile(const QString& path) {
  try {
    pim::loadNetworkModelFile(path.toStdString());  // refused here, with the file's own message
  } catch (const std::exception& e) {
    m_status->setText(tr("Cannot open the network: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  int i = m_network->findData(path);
  if (i < 0) {
    m_network->addItem(QFileInfo(path).fileName(), path);
    i = m_network->count() - 1;
  }
  m_network->setCurrentIndex(i);
  m_status->setText(tr("Opened %1").arg(path));
  return true;
}

void NetworkCompileView::setRunning(bool on) {
  m_compile->setEnabled(!on);
  m_cancel->setEnabled(on);
}

void NetworkCompileView::compile() {
  std::vector<pim::NetworkCompileRequest> requests;
  for (QCheckBox* box : m_methods) {
    if (!box->isChecked()) continue;
    pim::NetworkCompileRequest r;
    r.compile.replication = box->text().toStdString();
    r.compile.unfolding.all = m_unfolding->currentData().toString().toStdString();
    r.compile.mode = m_mode->currentData().toString() == QLatin1String("ll")
                         ? pim::crossbar::PipelineMode::Ll
                         : pim::crossbar::PipelineMode::Ht;
    r.timing = selectedTiming(m_timing);
    requests.push_back(std::move(r));
  }
  if (requests.empty()) {
    m_status->setText(tr("Tick at least one replication method to compile"));
    return;
  }
  try {
    pim::Network net = pim::loadNetworkModelFile(m_network->currentData().toString().toStdString());
    pim::Backend backend = pim::builtinBackends().get(m_backend->currentText().toStdString());
    m_status->setText(tr("Compiling %1 on %2…").arg(m_network->currentText(), m_backend->currentText()));
    setRunning(true);
    m_runner->start(std::move(backend), std::move(net), std::move(requests));
  } catch (const std::exception& e) {
    m_status->setText(tr("Cannot compile: %1").arg(QString::fromStdString(e.what())));
  }
}

void NetworkCompileView::cancel() { m_runner->cancel(); }

void NetworkCompileView::addCandidate(const CompiledCandidate& c) {
  const int index = static_cast<int>(m_candidates.size());
  m_candidates.push_back(c);
  const bool sorting = m_table->isSortingEnabled();
  m_table->setSortingEnabled(false);  // rows are filled before they move
  const int row = m_table->rowCount();
  m_table->insertRow(row);
  auto* method = new QTableWidgetItem(QString::fromStdString(c.method));
  method->setData(Qt::UserRole, index);
  m_table->setItem(row, kMethod, method);
  m_table->setItem(row, kUnfolding, new QTableWidgetItem(unfoldingText(c)));
  if (const auto& r = c.result) {
    m_table->setItem(row, kMode,
                     new QTableWidgetItem(QString::fromStdString(std::string(pim::modeName(r->mode)))));
    m_table->setItem(
        row, kTiming,
        new QTableWidgetItem(QString::fromStdString(std::string(pim::xbar::timingModelName(r->timing)))));
    m_table->setItem(row, kPeriod, numberItem(micro(r->periodNs), 1));
    m_table->setItem(row, kThroughput, numberItem(r->throughputPerS, 1));
    m_table->setItem(row, kFirstBatch, numberItem(micro(r->firstBatchLatencyNs), 1));
    m_table->setItem(row, kLatency, numberItem(micro(r->latencyNs), 1));
    m_table->setItem(row, kEnergy, numberItem(r->energyNj / 1e6, 3));
    m_table->setItem(row, kCrossbars, numberItem(static_cast<double>(r->crossbarsUsed), 0));
    m_table->setItem(row, kGroups, numberItem(static_cast<double>(r->instructionGroups), 0));
    m_table->setItem(row, kMvms, numberItem(static_cast<double>(r->mvmCount), 0));
    m_table->setItem(row, kSeconds, numberItem(r->planSeconds + r->scheduleSeconds, 2));
    QString note = tr("%1 on %2").arg(QString::fromStdString(r->network), QString::fromStdString(r->backend));
    // A cancelled genetic search still delivers its best so far: the row must not read as a finished search.
    if (r->gaCancelled)
      note += tr(" · genetic search stopped after %n iteration(s): its best so far", nullptr,
                 static_cast<int>(std::max<std::size_t>(r->gaHistory.size(), 1) - 1));
    if (const std::string placed = pim::compileNote(*r); !placed.empty())
      note += QStringLiteral(" · ") + QString::fromStdString(placed);
    m_table->setItem(row, kNote, new QTableWidgetItem(note));
  } else {
    auto* note = new QTableWidgetItem(tr("cannot compile: %1").arg(c.error));
    note->setForeground(QColor(170, 30, 30));
    note->setToolTip(c.error);
    m_table->setItem(row, kNote, note);
  }
  m_table->setSortingEnabled(sorting);
  if (m_table->selectedItems().isEmpty() && c.result) m_table->selectRow(method->row());
  redrawPareto();
}

void NetworkCompileView::showSelected() {
  const auto items = m_table->selectedItems();
  std::shared_ptr<const pim::NetworkCompileResult> result;
  if (!items.isEmpty()) {
    const QTableWidgetItem* method = m_table->item(items.front()->row(), kMethod);
    const int index = method ? method->data(Qt::UserRole).toInt() : -1;
    if (index >= 0 && index < static_cast<int>(m_candidates.size())) result = m_candidates[index].result;
  }
  m_coreMap->setResult(result);
  showPipeline(result);
}

void NetworkCompileView::showPipeline(const std::shared_ptr<const pim::NetworkCompileResult>& r) {
  if (!r) return m_pipeline->setStages(nullptr, {}, {});
  pim::EvalOptions o;
  o.keepUnitStats = false;  // the stages alone
  auto e = std::make_shared<const pim::Evaluation>(pim::layerEvaluation(*r, 0, o));
  QStringList parts;
  for (const pim::SubPhaseDecl& d : pim::crossbarSubPhases()) parts << QString::fromStdString(d.label);
  const QString what = tr("%1 on %2 (%3, %4)")
                           .arg(QString::fromStdString(r->network), QString::fromStdString(r->backend),
                                r->periodNs ? QStringLiteral("HT") : QStringLiteral("LL"),
                                QString::fromStdString(r->replication));
  m_pipeline->setStages(std::move(e), parts,
                        r->periodNs
                            ? tr("%1: each layer's time on its busiest core; the bottleneck bounds the "
                                 "period")
                                  .arg(what)
                            : tr("%1: each layer from its first instruction to its last; latency %2 µs")
                                  .arg(what)
                                  .arg(r->latencyNs.value_or(0) / 1000.0, 0, 'f', 1));
}

void NetworkCompileView::redrawPareto() {
  m_pareto->clearPlottables();
  m_pareto->clearItems();
  std::vector<ParetoPoint> points, finalists;
  for (const CompiledCandidate& c : m_candidates) {
    if (!c.result) continue;
    const auto& r = *c.result;
    const double ns = r.periodNs ? *r.periodNs : r.latencyNs.value_or(0);
    const QString unfolding = c.unfolding == "im2col" ? QString() : QStringLiteral(", ") + unfoldingText(c);
    points.push_back(
        {ns / 1000.0, r.energyNj / 1e6,
         QStringLiteral("%1 (%2, %3%4)")
             .arg(QString::fromStdString(c.method),
                  QString::fromStdString(std::string(pim::modeName(r.mode))),
                  QString::fromStdString(std::string(pim::xbar::timingModelName(r.timing))), unfolding)});
    for (const auto& f : r.gaFinalists) finalists.push_back({f.timeNs / 1000.0, f.energyNj / 1e6, {}});
  }
  m_pareto->xAxis->setLabel(tr("Time per inference: HT period or LL latency (µs, log)"));
  m_pareto->yAxis->setLabel(tr("Energy per inference (mJ, log)"));
  // Times and energies of candidates span orders of magnitude (uniform's period is 18x balance's). With no
  // point yet the axes carry no numbers: a range of nothing would be invented.
  for (QCPAxis* axis : {m_pareto->xAxis, m_pareto->yAxis}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    axis->setTickLabels(!points.empty());
  }
  if (points.empty()) {
    auto* note = new QCPItemText(m_pareto);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setColor(QColor(110, 110, 110));
    note->setText(tr("Each compiled candidate becomes a point: time against energy, both lower is better"));
    m_pareto->legend->setVisible(false);
    m_pareto->replot();
    return;
  }
  auto* population = m_pareto->addGraph();
  auto* dominated = m_pareto->addGraph();
  auto* front = m_pareto->addGraph();
  for (QCPGraph* g : {population, dominated, front}) g->setLineStyle(QCPGraph::lsNone);
  population->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QColor(160, 160, 160), 6));
  dominated->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(120, 120, 120), 7));
  front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x3b, 0x52, 0x8b), 9));
  population->setName(tr("GA final population"));
  dominated->setName(tr("dominated"));
  front->setName(tr("Pareto-optimal"));
  if (finalists.empty()) population->removeFromLegend();
  std::vector<ParetoPoint> all = points;
  all.insert(all.end(), finalists.begin(), finalists.end());
  for (const ParetoPoint& p : finalists) population->addData(p.timeUs, p.energyMj);
  std::sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    return std::tie(a.timeUs, a.energyMj) < std::tie(b.timeUs, b.energyMj);
  });
  points = mergedCoincident(std::move(points));
  const std::vector<bool> above = labelsAbove(points);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ParetoPoint& p = points[i];
    const bool beaten = std::any_of(all.begin(), all.end(), [&](const ParetoPoint& q) {
      return q.timeUs <= p.timeUs && q.energyMj <= p.energyMj &&
             (q.timeUs < p.timeUs || q.energyMj < p.energyMj);
    });
    (beaten ? dominated : front)->addData(p.timeUs, p.energyMj);
    auto* label = new QCPItemText(m_pareto);
    label->position->setCoords(p.timeUs, p.energyMj);
    label->setPositionAlignment(Qt::AlignLeft | (above[i] ? Qt::AlignBottom : Qt::AlignTop));
    label->setText(QStringLiteral("  ") + p.label);
    label->setFont(QFont(m_pareto->font().family(), 8));
  }
  double lo = all.front().timeUs, hi = lo, elo = all.front().energyMj, ehi = elo;
  for (const ParetoPoint& p : all) {
    lo = std::min(lo, p.timeUs), hi = std::max(hi, p.timeUs);
    elo = std::min(elo, p.energyMj), ehi = std::max(ehi, p.energyMj);
  }
  m_pareto->legend->setVisible(true);
  m_pareto->xAxis->setRange(lo / 1.5, hi * 3);  // room on the right for the labels
  m_pareto->yAxis->setRange(elo / 1.5, ehi * 1.5);
  m_pareto->replot();
}

}  // namespace pimgui
