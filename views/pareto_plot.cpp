// SPDX-License-Identifier: Apache-2.0
#include "views/pareto_plot.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/elided_label.h"
#include "views/plot_legend.h"
#include "views/plot_tickers.h"

namespace pimgui {

std::vector<std::size_t> paretoFront(const std::vector<std::pair<double, double>>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return points[a] < points[b]; });
  std::vector<std::size_t> front;
  double bestY = std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    // Sorted by x then y: a point is non-dominated iff it improves on the lowest y seen so far; an exact
    // duplicate of a front point is on the front too.
    if (points[i].second < bestY || (!front.empty() && points[i] == points[front.back()])) {
      front.push_back(i);
      bestY = std::min(bestY, points[i].second);
    }
  }
  return front;
}

ParetoPlot::ParetoPlot(DraftTableModel* model, DraftSelection* selection, QWidget* parent)
    : QWidget(parent), m_model(model), m_selection(selection) {
  m_x = new QComboBox;
  m_y = new QComboBox;
  for (int o = 0; o < kObjectiveCount; ++o) {
    m_x->addItem(objectiveTitle(static_cast<Objective>(o), m_model->unitName()), o);
    m_y->addItem(objectiveTitle(static_cast<Objective>(o), m_model->unitName()), o);
  }
  m_x->setCurrentIndex(static_cast<int>(Objective::SimulatedTime));
  m_y->setCurrentIndex(static_cast<int>(Objective::Energy));
  // The row may shrink below its texts (a 1280-pixel window did not fit this dock's 650-pixel minimum): the
  // boxes show a dozen characters at least and the summary ends in "…" (its tooltip has it all).
  for (QComboBox* box : {m_x, m_y}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
  }
  m_summary = new ElidedLabel;
  // Times and energies of drafts span orders of magnitude; the front sits in the lower-left corner.
  m_log = new QCheckBox(tr("log axes"));
  m_log->setChecked(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("x:")));
  bar->addWidget(m_x);
  bar->addWidget(new QLabel(tr("y:")));
  bar->addWidget(m_y);
  bar->addWidget(m_log);
  bar->addStretch();
  bar->addWidget(m_summary);

  m_plot = new QCustomPlot;
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->setSelectionRectMode(QCP::srmNone);
  m_plot->setMinimumSize(320, 180);  // shares a short screen's height with the breakdown below it
  m_dominated = m_plot->addGraph();
  m_dominated->setLineStyle(QCPGraph::lsNone);
  m_dominated->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(78, 121, 167, 90), 5));
  m_dominated->setName(tr("dominated"));
  m_front = m_plot->addGraph();
  m_front->setLineStyle(QCPGraph::lsStepLeft);  // the front is a staircase between non-dominated drafts
  m_front->setPen(QPen(QColor(242, 142, 43), 1.5));
  m_front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(242, 142, 43), 8));
  m_front->setName(tr("Pareto front"));
  m_selected = m_plot->addGraph();
  m_selected->setLineStyle(QCPGraph::lsNone);
  m_selected->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(200, 30, 30), 2), Qt::NoBrush, 14));
  m_selected->setName(tr("selected"));
  // Pruned drafts sit on a layer below the evaluated ones, so the grey cloud never hides them.
  m_plot->addLayer(QStringLiteral("pruned"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limBelow);
  m_prunedGraph = m_plot->addGraph();
  m_prunedGraph->setLayer(QStringLiteral("pruned"));
  m_prunedGraph->setLineStyle(QCPGraph::lsNone);
  m_prunedGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(190, 190, 190), 3));
  m_prunedGraph->removeFromLegend();
  // The previous front after a what-if edit: faint and dashed, behind the points, so the new front reads on
  // top and the shift between them is what stands out.
  m_ghostGraph = m_plot->addGraph();
  m_ghostGraph->setLayer(QStringLiteral("pruned"));
  m_ghostGraph->setLineStyle(QCPGraph::lsStepLeft);
  m_ghostGraph->setPen(QPen(QColor(120, 120, 120, 170), 1.5, Qt::DashLine));
  m_ghostGraph->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(120, 120, 120, 170), 1.2), Qt::NoBrush, 7));
  m_ghostGraph->removeFromLegend();
  for (QCPGraph* g : {m_dominated, m_front, m_selected, m_prunedGraph, m_ghostGraph})
    g->setSelectable(QCP::stNone);
  // The legend sits in its own row under the axes, never over the data (it hid the best draft in a corner).
  placeLegendBelow(m_plot);
  m_plot->legend->setWrap(3);  // a fourth entry (the ghost front, pruned drafts) starts a second row
  m_plot->legend->setMargins(QMargins(4, 0, 4, 2));
  m_plot->selectionRect()->setPen(QPen(QColor(50, 50, 200), 1, Qt::DashLine));
  m_plot->selectionRect()->setBrush(QColor(50, 50, 200, 30));
  m_plot->installEventFilter(this);
  m_plot->setMouseTracking(true);
  m_emptyNote = new QCPItemText(m_plot);
  m_emptyNote->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_emptyNote->position->setCoords(0.5, 0.5);
  m_emptyNote->setPositionAlignment(Qt::AlignCenter);
  m_emptyNote->setColor(QColor(110, 110, 110));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(m_plot, 1);

  auto axesChanged = [this] {
    m_userZoomed = false;
    applyScale();  // a count axis ticks whole numbers
    refresh();
  };
  connect(m_x, &QComboBox::currentIndexChanged, this, axesChanged);
  connect(m_y, &QComboBox::currentIndexChanged, this, axesChanged);
  connect(m_log, &QCheckBox::toggled, this, [this] {
    applyScale();
    resetView();
  });
  connect(m_selection, &DraftSelection::changed, this, [this] { showSelection(); });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_userZoomed = true; });
  connect(m_plot->selectionRect(), &QCPSelectionRect::accepted, this,
          [this](const QRect& rect, QMouseEvent*) { selectInRect(rect); });
  applyScale();
  refresh();
}

void ParetoPlot::applyScale() {
  const std::pair<QCPAxis*, QComboBox*> axes[] = {{m_plot->xAxis, m_x}, {m_plot->yAxis, m_y}};
  for (const auto& [a, box] : axes) {
    const int code = box->currentData().toInt();
    const pim::StatDecl* fact = factAxis(static_cast<Objective>(code));
    const bool integral = code == static_cast<int>(Objective::UnitsUsed) || (fact && fact->integral);
    if (m_log->isChecked()) {
      a->setScaleType(QCPAxis::stLogarithmic);
      a->setTicker(QSharedPointer<QCPAxisTickerLog>(new ReadableLogTicker(integral)));
    } else {
      a->setScaleType(QCPAxis::stLinear);
      a->setTicker(QSharedPointer<QCPAxisTicker>(new CountAwareTicker(integral)));
    }
  }
}

int ParetoPlot::axisCount() const { return kObjectiveCount + static_cast<int>(m_model->facts().size()); }

void ParetoPlot::setObjectives(Objective x, Objective y) {
  syncAxisItems();
  m_x->setCurrentIndex(static_cast<int>(x));
  m_y->setCurrentIndex(static_cast<int>(y));
  refresh();
}

Objective ParetoPlot::xObjective() const { return static_cast<Objective>(m_x->currentData().toInt()); }
Objective ParetoPlot::yObjective() const { return static_cast<Objective>(m_y->currentData().toInt()); }
bool ParetoPlot::logAxes() const { return m_log->isChecked(); }
void ParetoPlot::setLogAxes(bool on) { m_log->setChecked(on); }

std::array<double, 4> ParetoPlot::viewRange() const {
  return {m_plot->xAxis->range().lower, m_plot->xAxis->range().upper, m_plot->yAxis->range().lower,
          m_plot->yAxis->range().upper};
}

void ParetoPlot::setView(const std::array<double, 4>& range) {
  m_plot->xAxis->setRange(range[0], range[1]);
  m_plot->yAxis->setRange(range[2], range[3]);
  m_userZoomed = true;
  m_plot->replot();
}

const pim::StatDecl* ParetoPlot::factAxis(Objective o) const {
  const int f = static_cast<int>(o) - kObjectiveCount;
  const auto& facts = m_model->facts();
  return f >= 0 && f < static_cast<int>(facts.size()) ? &facts[static_cast<std::size_t>(f)] : nullptr;
}

std::optional<double> ParetoPlot::axisValue(const DraftRow& row, Objective o) const {
  if (static_cast<int>(o) < kObjectiveCount) return objectiveValue(row, o);
  const pim::StatDecl* fact = factAxis(o);
  if (!fact || !row.simulated) return std::nullopt;
  for (const auto& [key, value] : row.simulated->facts)
    if (key == fact->key) return value;
  return std::nullopt;
}

QString ParetoPlot::axisTitle(Objective o) const {
  if (static_cast<int>(o) < kObjectiveCount) return objectiveTitle(o, m_model->unitName());
  const pim::StatDecl* fact = factAxis(o);
  if (!fact) return {};
  QString title = QString::fromStdString(fact->label);
  if (!title.isEmpty()) title[0] = title[0].toUpper();
  return fact->higherIsBetter ? tr("%1 (%2, higher is better)").arg(title, QString::fromStdString(fact->unit))
                              : tr("%1 (%2)").arg(title, QString::fromStdString(fact->unit));
}

bool ParetoPlot::offersAxis(Objective o) const {
  if (o != Objective::RearrangementTime) return static_cast<int>(o) < axisCount();
  return m_model->reports(DraftTableModel::InRearr) || m_model->reports(DraftTableModel::OutRearr);
}

void ParetoPlot::syncAxisItems() {
  const int wanted = axisCount();
  for (QComboBox* box : {m_x, m_y}) {
    const QSignalBlocker block(box);
    const int current = box->currentIndex();
    while (box->count() > wanted) box->removeItem(box->count() - 1);
    while (box->count() < wanted) box->addItem(QString(), box->count());
    for (int o = 0; o < wanted; ++o) box->setItemText(o, axisTitle(static_cast<Objective>(o)));
    const int rearrangement = static_cast<int>(Objective::RearrangementTime);
    const bool offered = offersAxis(Objective::RearrangementTime);
    if (auto* list = qobject_cast<QListView*>(box->view())) list->setRowHidden(rearrangement, !offered);
    if (auto* items = qobject_cast<QStandardItemModel*>(box->model()))
      items->item(rearrangement)->setEnabled(offered);  // nor chosen by the wheel or the keys
    // A figure the new family does not declare or report: back to the default axes.
    if (current >= wanted || current < 0 || (current == rearrangement && !offered))
      box->setCurrentIndex(static_cast<int>(box == m_x ? Objective::SimulatedTime : Objective::Energy));
  }
}

void ParetoPlot::refresh() {
  syncAxisItems();
  const auto ox = static_cast<Objective>(m_x->currentData().toInt());
  const auto oy = static_cast<Objective>(m_y->currentData().toInt());
  m_points.clear();
  std::vector<std::pair<double, double>> xy;
  auto sign = [this](Objective o) {
    const pim::StatDecl* fact = factAxis(o);
    return fact && fact->higherIsBetter ? -1.0 : 1.0;
  };
  const double signX = sign(ox), signY = sign(oy);
  bool anyX = false, anyY = false;  // whether some draft has a value on that axis alone
  for (int r = 0; r < m_model->keptRows(); ++r) {
    const DraftRow& row = m_model->row(r);
    const auto vx = axisValue(row, ox), vy = axisValue(row, oy);
    anyX = anyX || vx;
    anyY = anyY || vy;
    if (!vx || !vy) continue;
    m_points.push_back({*vx, *vy, row.draft.id, r, false});
    xy.emplace_back(*vx * signX, *vy * signY);  // the front minimises: an axis where more is better flips
  }
  for (std::size_t i : paretoFront(xy)) m_points[i].front = true;

  QVector<double> dx, dy, fx, fy;
  std::vector<std::pair<double, double>> frontPts;
  for (const Point& p : m_points) {
    if (p.front)
      frontPts.emplace_back(p.x, p.y);
    else {
      dx << p.x;
      dy << p.y;
    }
  }
  std::sort(frontPts.begin(), frontPts.end());
  for (auto& [x, y] : frontPts) {
    fx << x;
    fy << y;
  }
  m_dominated->setData(dx, dy, true);
  m_front->setData(fx, fy, true);
  m_plot->xAxis->setLabel(axisTitle(ox));
  m_plot->yAxis->setLabel(axisTitle(oy));
  m_summary->setText(tr("%1 drafts, %2 on the front").arg(m_points.size()).arg(frontPts.size()));
  m_summary->setToolTip(m_summary->text());
  refreshPruned(ox, oy);
  refreshGhost(ox, oy);
  // Why the plot is empty: nothing evaluated, or an axis this run gives no draft a value on (a predicted
  // time without a model).
  QString why = tr("nothing evaluated");
  if (anyX != anyY) why = tr("no draft has a value for %1 in this run").arg(axisTitle(anyX ? oy : ox));
  m_emptyNote->setText(m_points.empty() && m_prunedPoints.empty()
                           ? tr("No drafts with a value on both axes yet\n(%1)").arg(why)
                           : QString());
  m_emptyNote->setVisible(!m_emptyNote->text().isEmpty());
  // An empty plot's axes carry no numbers: a range with nothing in it would read as data.
  m_plot->xAxis->setTickLabels(!m_emptyNote->visible());
  m_plot->yAxis->setTickLabels(!m_emptyNote->visible());
  if (!m_userZoomed) resetView();
  showSelection();
}

ParetoGhost ParetoPlot::captureGhost(const DraftTableModel& model, const QString& label) {
  ParetoGhost g;
  g.label = label;
  for (int r = 0; r < model.keptRows(); ++r) {
    std::array<double, kObjectiveCount> v;
    bool any = false;
    for (int o = 0; o < kObjectiveCount; ++o) {
      const auto x = objectiveValue(model.row(r), static_cast<Objective>(o));
      v[static_cast<std::size_t>(o)] = x ? *x : std::nan("");
      any = any || x.has_value();
    }
    if (any) g.values.push_back(v);
  }
  return g;
}

void ParetoPlot::setGhost(std::shared_ptr<const ParetoGhost> ghost) {
  m_ghost = std::move(ghost);
  refresh();
}

void ParetoPlot::refreshGhost(Objective ox, Objective oy) {
  m_ghostFront.clear();
  std::vector<std::pair<double, double>> xy;
  // A ghost keeps the fixed objectives only: none on a target's own figure.
  const bool fixedAxes = static_cast<int>(ox) < kObjectiveCount && static_cast<int>(oy) < kObjectiveCount;
  for (const auto& v : m_ghost&& fixedAxes ? m_ghost->values : decltype(m_ghost->values){}) {
    const double x = v[static_cast<std::size_t>(ox)], y = v[static_cast<std::size_t>(oy)];
    if (std::isfinite(x) && std::isfinite(y)) xy.emplace_back(x, y);
  }
  for (std::size_t i : paretoFront(xy)) m_ghostFront.push_back(xy[i]);
  std::sort(m_ghostFront.begin(), m_ghostFront.end());
  QVector<double> gx, gy;
  for (const auto& [x, y] : m_ghostFront) {
    gx << x;
    gy << y;
  }
  m_ghostGraph->setData(gx, gy, true);
  const bool shown = !m_ghostFront.empty();
  if (shown && !m_ghostGraph->visible()) m_ghostGraph->addToLegend();
  if (!shown && m_ghostGraph->visible()) m_ghostGraph->removeFromLegend();
  m_ghostGraph->setVisible(shown);
  m_ghostGraph->setName(m_ghost ? m_ghost->label : QString());
}

QString ParetoPlot::emptyNote() const { return m_emptyNote->visible() ? m_emptyNote->text() : QString(); }

void ParetoPlot::resetView() {
  m_userZoomed = false;
  if (m_points.empty() && m_prunedPoints.empty()) {
    // Nothing to scale to: a plain decade, not a range of zero width drawn as a wall of tick labels.
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis})
      a->setRange(a->scaleType() == QCPAxis::stLogarithmic ? QCPRange(1, 10) : QCPRange(0, 1));
    m_plot->replot();
    return;
  }
  m_plot->rescaleAxes();
  for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis}) {
    QCPRange r = a->range();
    if (a->scaleType() == QCPAxis::stLogarithmic) {
      if (r.lower <= 0) r.lower = r.upper > 0 ? r.upper / 10 : 1;
      // Multiplicative padding of ~6% of the decades shown (at least 2%), so narrow ranges stay readable.
      const double f = std::max(1.02, std::pow(r.upper / r.lower, 0.06));
      a->setRange(r.lower / f, r.upper * f);
      continue;
    }
    const double pad = r.size() > 0 ? r.size() * 0.06 : std::max(1.0, std::abs(r.center()) * 0.1);
    a->setRange(r.lower - pad, r.upper + pad);
  }
  m_plot->replot();
}

void ParetoPlot::showSelection() {
  QVector<double> sx, sy;
  for (const Point& p : m_points) {
    if (m_selection->contains(p.id)) {
      sx << p.x;
      sy << p.y;
    }
  }
  for (const Point& p : m_prunedPoints) {
    if (m_selection->contains(p.id)) {
      sx << p.x;
      sy << p.y;
    }
  }
  m_selected->setData(sx, sy);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setShowPruned(bool on) {
  if (m_showPruned == on) return;
  m_showPruned = on;
  refresh();
}

void ParetoPlot::refreshPruned(Objective ox, Objective oy) {
  m_prunedPoints.clear();
  m_prunedPlottable = 0;
  QVector<double> px, py;
  bool predicted = false;
  if (m_showPruned) {
    for (int r = m_model->keptRows(); r < m_model->rowCount(); ++r) {
      const DraftRow& row = m_model->row(r);
      predicted = predicted || row.predictedNs.has_value();
      if (axisValue(row, ox) && axisValue(row, oy)) ++m_prunedPlottable;
    }
    // Thinning is by row order (pruned rows are listed in id order), so the same rows are drawn every time.
    const std::size_t stride =
        std::max<std::size_t>(1, (m_prunedPlottable + kMaxPrunedPoints - 1) / kMaxPrunedPoints);
    std::size_t seen = 0;
    for (int r = m_model->keptRows(); r < m_model->rowCount(); ++r) {
      const DraftRow& row = m_model->row(r);
      const auto vx = axisValue(row, ox), vy = axisValue(row, oy);
      if (!vx || !vy || seen++ % stride != 0) continue;
      m_prunedPoints.push_back({*vx, *vy, row.draft.id, r, false});
      px << *vx;
      py << *vy;
    }
  }
  m_prunedGraph->setData(px, py);
  const bool listed = m_showPruned && m_model->prunedRows() > 0;
  if (!listed) {
    m_prunedGraph->removeFromLegend();
    return;
  }
  // Pruned drafts were never simulated: say why a simulated axis shows none, and when the cloud is thinned.
  QString name;
  if (!predicted)
    name = tr("pruned: not plotted (no predictor in this run)");
  else if (m_prunedPlottable == 0)
    name = tr("pruned: not on these axes (predicted time, %1s used only)").arg(m_model->unitName());
  else if (m_prunedPoints.size() < static_cast<std::size_t>(m_model->prunedRows()))
    // Fewer than listed: rows without a bank layout (the lister lays out a sample) or thinned here.
    name = tr("pruned (predicted only, %L1 of %L2)").arg(m_prunedPoints.size()).arg(m_model->prunedRows());
  else
    name = tr("pruned (predicted only)");
  m_prunedGraph->setName(name);
  m_prunedGraph->addToLegend();
  m_summary->setText(m_summary->text() + tr(", %L1 pruned shown").arg(m_prunedPoints.size()));
  m_summary->setToolTip(m_summary->text());
}

int ParetoPlot::nearestPoint(const std::vector<Point>& points, const QPoint& pixel, double radius) const {
  int best = -1;
  double bestD = radius * radius;
  for (int i = 0; i < static_cast<int>(points.size()); ++i) {
    const double px = m_plot->xAxis->coordToPixel(points[i].x) - pixel.x();
    const double py = m_plot->yAxis->coordToPixel(points[i].y) - pixel.y();
    const double d = px * px + py * py;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

// Grey points are small and dense: a tighter pick radius than the evaluated ones.
int ParetoPlot::prunedPointAt(const QPoint& pixel) const { return nearestPoint(m_prunedPoints, pixel, 5.0); }

int ParetoPlot::pointAt(const QPoint& pixel) const { return nearestPoint(m_points, pixel, 8.0); }

void ParetoPlot::selectInRect(const QRect& rect) {
  QList<quint64> ids;
  for (const Point& p : m_points) {
    const QPoint px(int(m_plot->xAxis->coordToPixel(p.x)), int(m_plot->yAxis->coordToPixel(p.y)));
    if (rect.normalized().contains(px)) ids << p.id;
  }
  m_selection->set(ids);
  m_plot->setSelectionRectMode(QCP::srmNone);
}

bool ParetoPlot::eventFilter(QObject* watched, QEvent* event) {
  if (watched != m_plot) return QWidget::eventFilter(watched, event);
  switch (event->type()) {
    case QEvent::MouseButtonPress: {
      auto* me = static_cast<QMouseEvent*>(event);
      // Shift turns the drag into a selection rectangle; otherwise dragging pans.
      m_plot->setSelectionRectMode(me->modifiers() & Qt::ShiftModifier ? QCP::srmSelect : QCP::srmNone);
      if (!(me->modifiers() & Qt::ShiftModifier) && me->button() == Qt::LeftButton) {
        const int i = pointAt(me->pos());
        const int j = i < 0 ? prunedPointAt(me->pos()) : -1;
        if (i >= 0 || j >= 0) {
          // A grey point selects its pruned draft: the details dock then says why it was pruned.
          const quint64 id = i >= 0 ? m_points[i].id : m_prunedPoints[j].id;
          QList<quint64> ids;
          if (me->modifiers() & Qt::ControlModifier) ids = m_selection->ids();
          if (!ids.contains(id)) ids.prepend(id);
          m_selection->set(ids);
        } else {
          m_userZoomed = true;  // a drag on empty space pans
        }
      }
      break;
    }
    case QEvent::MouseMove: {
      auto* me = static_cast<QMouseEvent*>(event);
      if (me->buttons() != Qt::NoButton) break;
      const int i = pointAt(me->pos());
      if (i < 0) {
        const int j = prunedPointAt(me->pos());
        if (j < 0) {
          QToolTip::hideText();
          break;
        }
        const Point& p = m_prunedPoints[j];
        const DraftRow& row = m_model->row(p.row);
        const QString label = m_model->index(p.row, DraftTableModel::Parts).data().toString();
        QToolTip::showText(me->globalPosition().toPoint(),
                           tr("<b>Draft %1</b> (pruned by rule %2: %3)<br>%4<br>%5: %6<br>%7: %8<br>"
                              "<i>predicted and laid out, never simulated</i>")
                               .arg(p.id)
                               .arg(row.rule)
                               .arg(QString::fromStdString(row.reason).toHtmlEscaped())
                               .arg(label.toHtmlEscaped())
                               .arg(m_plot->xAxis->label())
                               .arg(p.x, 0, 'g', 5)
                               .arg(m_plot->yAxis->label())
                               .arg(p.y, 0, 'g', 5),
                           m_plot);
        break;
      }
      const Point& p = m_points[i];
      const QString label = m_model->index(p.row, DraftTableModel::Parts).data().toString();
      QToolTip::showText(me->globalPosition().toPoint(),
                         tr("<b>Draft %1</b>%2<br>%3<br>%4: %5<br>%6: %7")
                             .arg(p.id)
                             .arg(p.front ? tr(" (Pareto front)") : QString())
                             .arg(label.toHtmlEscaped())
                             .arg(m_plot->xAxis->label())
                             .arg(p.x, 0, 'g', 5)
                             .arg(m_plot->yAxis->label())
                             .arg(p.y, 0, 'g', 5),
                         m_plot);
      break;
    }
    default:
      break;
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pimgui
