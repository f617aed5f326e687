// SPDX-License-Identifier: Apache-2.0
#include "views/layer_map_view.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>
#include <exception>
#include <variant>

#include "engine/common/output_file.h"
#include "engine/convmap/network_layers.h"
#include "engine/convmap/result_text.h"
#include "engine/kernel/network.h"
#include "engine/milp/milp.h"
#include "views/solve_progress_plot.h"

namespace pimgui {

namespace cm = pim::convmap;

namespace {

QComboBox* comboOf(const std::vector<std::string>& items, const QString& preferred, const QString& tip) {
  auto* box = new QComboBox;
  for (const auto& item : items) box->addItem(QString::fromStdString(item));
  box->setCurrentIndex(std::max(0, box->findText(preferred)));
  box->setToolTip(tip);
  return box;
}

QPlainTextEdit* monospaceText(const QString& placeholder) {
  auto* text = new QPlainTextEdit;
  text->setReadOnly(true);
  text->setLineWrapMode(QPlainTextEdit::NoWrap);
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text->setPlaceholderText(placeholder);
  return text;
}

QLabel* labelFor(const QString& text, QWidget* buddy) {
  auto* label = new QLabel(text);
  label->setBuddy(buddy);
  return label;
}

cm::Objective objectiveOf(const QString& text) {
  if (text == QLatin1String("latency")) return cm::Objective::Latency;
  if (text == QLatin1String("energy")) return cm::Objective::Energy;
  return cm::Objective::Blended;
}

QString bytesText(const std::array<std::int64_t, 3>& b) {
  return QStringLiteral("%1 / %2 / %3").arg(b[0]).arg(b[1]).arg(b[2]);
}

}  // namespace

LayerMapView::LayerMapView(QWidget* parent) : QWidget(parent), m_runner(new LayerMapRunner(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildControls());
  m_status = new QLabel;
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);
  layout->addWidget(buildResults(), 1);
  connect(m_runner, &LayerMapRunner::progressed, this, &LayerMapView::showProgress);
  connect(m_runner, &LayerMapRunner::logged, this, [this](const QString& line) {
    // At the document's end, not through the view's cursor: appending there scrolls the view to the end of
    // the longest line, out of the others' sight.
    QTextCursor end(m_log->document());
    end.movePosition(QTextCursor::End);
    end.insertText(m_log->document()->isEmpty() ? line : QStringLiteral("\n") + line);
  });
  connect(m_runner, &LayerMapRunner::finished, this, &LayerMapView::showOutcome);
  connect(m_runner, &LayerMapRunner::stopping, this,
          [this] { m_status->setText(tr("Cancelling: the search stops and keeps its best mapping…")); });
  fillLayers();
  updateSolverChoice();
  m_status->setText(tr("Choose a layer and press Map. The same search as pimscope-cli map."));
}

LayerMapView::~LayerMapView() { m_runner->stopAndWait(); }

bool LayerMapView::running() const { return m_runner->running(); }

QWidget* LayerMapView::buildControls() {
  m_hierarchy = comboOf(cm::builtinHierarchyNames(), QStringLiteral("pimopt-default"),
                        tr("The PIM memory hierarchy the layer is mapped on (datasets/hierarchies)"));
  m_network = comboOf(pim::builtinNetworkNames(), QStringLiteral("resnet18"),
                      tr("A shipped network: its conv and FC layers can be mapped"));
  m_layer = new QComboBox;
  m_layer->setToolTip(tr("The layer to map; grouped and depthwise layers are outside the model and say so"));
  m_layer->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_objective = comboOf({"latency", "energy", "blended"}, QStringLiteral("energy"),
                        tr("What the mapper minimises; blended: half latency, half energy, each over the "
                           "trivial mapping's"));
  QStringList mapperTips;  // each mapper's own description
  for (const auto& name : cm::mapperNames())
    mapperTips << QString::fromStdString(name + ": " + cm::makeMapper(name)->description());
  m_mapper = comboOf(cm::mapperNames(), QStringLiteral("auto"), mapperTips.join(QLatin1Char('\n')));
  m_solver = comboOf(pim::milp::solverNames(), QStringLiteral("cbc"),
                     tr("The MILP solver of the ilp mappers, and of auto under energy and the blend"));
  m_timeLimit = new QDoubleSpinBox;
  m_timeLimit->setRange(0.1, 86400);
  m_timeLimit->setDecimals(1);
  m_timeLimit->setValue(10);
  m_timeLimit->setSuffix(tr(" s"));
  m_timeLimit->setToolTip(tr("Seconds the mapper may search; a search stopped by it keeps its best mapping"));
  m_map = new QPushButton(tr("Map"));
  m_map->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setEnabled(false);
  m_save = new QPushButton(tr("Save mapping…"));
  m_save->setToolTip(
      tr("The mapping and its cost as JSON, as pimscope-cli map --out writes it (pimscope-cli "
         "rowtrace --mapping reads it)"));
  m_save->setEnabled(false);
  connect(m_network, &QComboBox::currentTextChanged, this, &LayerMapView::fillLayers);
  connect(m_mapper, &QComboBox::currentTextChanged, this, &LayerMapView::updateSolverChoice);
  connect(m_objective, &QComboBox::currentTextChanged, this, &LayerMapView::updateSolverChoice);
  // Before the first run the empty plot's axis names the objective chosen.
  connect(m_objective, &QComboBox::currentTextChanged, this, [this](const QString& text) {
    if (!m_runLayer) m_plot->begin({objectiveOf(text)}, m_plot->caption());
  });
  connect(m_map, &QPushButton::clicked, this, &LayerMapView::map);
  connect(m_cancel, &QPushButton::clicked, this, &LayerMapView::cancel);
  connect(m_save, &QPushButton::clicked, this, [this] {
    const QString name = QString::fromStdString(m_runLayer->name + "_" + m_runHierarchy->name + ".json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save mapping"), name, tr("JSON (*.json)"));
    if (!path.isEmpty()) saveMapping(path);
  });

  auto* box = new QWidget;
  auto* rows = new QVBoxLayout(box);
  rows->setContentsMargins(0, 0, 0, 0);
  auto* row1 = new QHBoxLayout;
  row1->addWidget(labelFor(tr("&Hierarchy:"), m_hierarchy));
  row1->addWidget(m_hierarchy);
  row1->addWidget(labelFor(tr("&Network:"), m_network));
  row1->addWidget(m_network);
  row1->addWidget(labelFor(tr("&Layer:"), m_layer));
  row1->addWidget(m_layer, 1);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(labelFor(tr("&Objective:"), m_objective));
  row2->addWidget(m_objective);
  row2->addWidget(labelFor(tr("&Mapper:"), m_mapper));
  row2->addWidget(m_mapper);
  row2->addWidget(labelFor(tr("&Solver:"), m_solver));
  row2->addWidget(m_solver);
  row2->addWidget(labelFor(tr("&Time limit:"), m_timeLimit));
  row2->addWidget(m_timeLimit);
  row2->addStretch(1);
  row2->addWidget(m_map);
  row2->addWidget(m_cancel);
  row2->addWidget(m_save);
  rows->addLayout(row1);
  rows->addLayout(row2);
  return box;
}

QWidget* LayerMapView::buildResults() {
  m_plot = new SolveProgressPlot;
  m_plot->begin({objectiveOf(m_objective->currentText())}, m_plot->caption());
  m_text = monospaceText(tr("The mapping, its cost and its loop nest appear here."));
  m_log = monospaceText(tr("The MILP solver's own log (ilp, and auto under energy) appears here."));
  m_log->setMaximumBlockCount(20000);  // a long solve's log stays bounded
  m_levels = new QTableWidget(0, 5);
  m_levels->setHorizontalHeaderLabels(
      {tr("Level"), tr("Cycles"), tr("Energy (nJ)"), tr("Read B (I / W / O)"), tr("Written B (I / W / O)")});
  m_levels->horizontalHeaderItem(3)->setToolTip(tr("Bytes read from the level: input / weight / output"));
  m_levels->horizontalHeaderItem(4)->setToolTip(tr("Bytes written to the level: input / weight / output"));
  m_levels->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_levels->verticalHeader()->setVisible(false);
  m_levels->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_tabs = new QTabWidget;
  m_tabs->addTab(m_text, tr("Mapping"));
  m_tabs->addTab(m_log, tr("Solver log"));
  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(m_tabs);
  right->addWidget(m_levels);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(m_plot);
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);  // the summary's lines are long
  return split;
}

void LayerMapView::fillLayers() {
  const QString previous = m_layer->currentData().toString();
  m_layer->clear();
  try {
    const auto net = cm::networkOption(m_network->currentText().toStdString());
    for (const auto& l : cm::networkLayers(net)) {
      const QString name = QString::fromStdString(l.name);
      const auto* layer = std::get_if<cm::ConvLayer>(&l.layer);
      m_layer->addItem(layer ? name + QStringLiteral("  (") + QString::fromStdString(cm::shapeText(*layer)) +
                                   QStringLiteral(")")
                             : name + tr("  (not mappable)"),
                       name);
    }
  } catch (const std::exception& e) {
    m_status->setText(tr("Cannot list the layers: %1").arg(QString::fromUtf8(e.what())));
  }
  m_layer->setCurrentIndex(std::max(0, m_layer->findData(previous)));
}

void LayerMapView::updateSolverChoice() {
  m_solver->setEnabled(
      cm::usesMilp(m_mapper->currentText().toStdString(), objectiveOf(m_objective->currentText())));
}

void LayerMapView::map() {
  LayerMapRequest request;
  try {
    request.hierarchy = cm::builtinHierarchy(m_hierarchy->currentText().toStdString());
    const auto net = cm::networkOption(m_network->currentText().toStdString());
    const std::string name = m_layer->currentData().toString().toStdString();
    std::optional<cm::ConvLayer> layer;
    for (const auto& l : cm::networkLayers(net, request.hierarchy.elementBytes)) {
      if (l.name != name) continue;
      if (const auto* why = std::get_if<std::string>(&l.layer))
        throw pim::InputError("layer " + name + ": " + *why);
      layer = std::get<cm::ConvLayer>(l.layer);
    }
    if (!layer) throw pim::InputError("no layer chosen");
    request.layer = *layer;
    request.mapper = m_mapper->currentText().toStdString();
    request.options.objective =
        cm::normalised({objectiveOf(m_objective->currentText())}, request.layer, request.hierarchy);
    request.options.timeLimitSeconds = m_timeLimit->value();
    request.options.solver = m_solver->currentText().toStdString();
  } catch (const std::exception& e) {
    showError(tr("Cannot map: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  m_runLayer = request.layer;
  m_runHierarchy = request.hierarchy;
  m_runObjective = request.options.objective;
  m_plot->begin(
      m_runObjective,
      tr("Mapping %1 on %2 (%3, %4 mapper): best mapping and proven bound over time")
          .arg(QString::fromStdString(request.layer.name), QString::fromStdString(request.hierarchy.name),
               m_objective->currentText(), m_mapper->currentText()));
  m_result.reset();  // the pane shows this run's result, or nothing if it cannot run
  m_text->clear();
  m_log->clear();
  m_levels->setRowCount(0);
  m_status->setText(tr("Mapping… (building the search)"));
  setRunning(true);
  m_runner->start(std::move(request));
}

void LayerMapView::cancel() { m_runner->cancel(); }

void LayerMapView::showError(const QString& message) {
  m_status->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(message.toHtmlEscaped()));
}

bool LayerMapView::saveMapping(const QString& path) {
  if (!m_result) {
    showError(tr("Nothing to save: map a layer first"));
    return false;
  }
  try {
    const auto j = cm::resultJson(*m_runLayer, *m_runHierarchy, *m_result);
    pim::writeFileAtomically(path.toStdString(), j.dump(1) + "\n");
  } catch (const std::exception& e) {
    showError(tr("Cannot save the mapping: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  m_status->setText(tr("Saved the mapping to %1").arg(path));
  return true;
}

void LayerMapView::setRunning(bool on) {
  m_map->setEnabled(!on);
  m_cancel->setEnabled(on);
  m_save->setEnabled(!on && m_result.has_value());
  for (QWidget* w :
       std::initializer_list<QWidget*>{m_hierarchy, m_network, m_layer, m_objective, m_mapper, m_timeLimit})
    w->setEnabled(!on);
  if (!on)
    updateSolverChoice();
  else
    m_solver->setEnabled(false);
}

void LayerMapView::showProgress(const cm::MapProgress& p) {
  m_status->setText(tr("Mapping: %1").arg(QString::fromStdString(cm::progressText(m_runObjective, p))));
  m_plot->add(p);
}

void LayerMapView::showOutcome(const LayerMapOutcome& outcome) {
  setRunning(false);
  if (!outcome.result) {
    m_result.reset();
    showError(tr("Cannot map: %1").arg(outcome.error));
    m_plot->begin(m_runObjective, tr("No search ran (the message above says why)."));
    emit done();
    return;
  }
  const cm::MapResult& r = *outcome.result;
  const QString proof = r.gap ? tr("%1, gap %2 % (bound: %3)")
                                    .arg(QString::fromStdString(r.status))
                                    .arg(*r.gap * 100, 0, 'f', 2)
                                    .arg(QString::fromStdString(r.boundSource))
                              : tr("%1, gap unknown").arg(QString::fromStdString(r.status));
  const QString verdict = (outcome.cancelled ? tr("Cancelled after %1 s; kept the best mapping found: %2")
                                             : tr("Done in %1 s: %2"))
                              .arg(r.seconds, 0, 'f', 1)
                              .arg(QString::fromStdString(r.mapper) + QStringLiteral(", ") + proof);
  m_status->setText(verdict);
  m_plot->finish(r);
  showResult(r);
  emit done();
}

void LayerMapView::showResult(const cm::MapResult& r) {
  m_result = r;
  m_save->setEnabled(true);
  const cm::Hierarchy& h = *m_runHierarchy;
  m_text->setPlainText(QString::fromStdString(cm::resultSummary(*m_runLayer, h, r) + "\nloop nest:\n" +
                                              cm::loopNestText(h, r.mapping)));
  const auto& levels = r.cost.levels;
  m_levels->setRowCount(static_cast<int>(levels.size()));
  for (std::size_t lv = 0; lv < levels.size(); ++lv) {
    const auto& l = levels[lv];
    const QStringList cells = {QString::fromStdString(h.levels[lv].name), QString::number(l.cycles),
                               QString::number(l.energyPj / 1e3, 'g', 8), bytesText(l.bytesRead),
                               bytesText(l.bytesWritten)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_levels->setItem(static_cast<int>(lv), c, item);
    }
  }
}

}  // namespace pimgui
