// SPDX-License-Identifier: Apache-2.0
#include "views/pareto_plot.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "views/draft_selection.h"
#include "views/draft_table_model.h"

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
    m_x->addItem(QString::fromUtf8(objectiveTitle(static_cast<Objective>(o))), o);
    m_y->addItem(QString::fromUtf8(objectiveTitle(static_cast<Objective>(o))), o);
  }
  m_x->setCurrentIndex(static_cast<int>(Objective::SimulatedTime));
  m_y->setCurrentIndex(static_cast<int>(Objective::Energy));
  m_summary = new QLabel;
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
  m_plot->setMinimumSize(320, 240);
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
  for (QCPGraph* g : {m_dominated, m_front, m_selected}) g->setSelectable(QCP::stNone);
  m_plot->legend->setVisible(true);
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->selectionRect()->setPen(QPen(QColor(50, 50, 200), 1, Qt::DashLine));
  m_plot->selectionRect()->setBrush(QColor(50, 50, 200, 30));
  m_plot->installEventFilter(this);
  m_plot->setMouseTracking(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(m_plot, 1);

  auto axesChanged = [this] {
    m_userZoomed = false;
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
  for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis}) {
    if (m_log->isChecked()) {
      a->setScaleType(QCPAxis::stLogarithmic);
      a->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else {
      a->setScaleType(QCPAxis::stLinear);
      a->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
  }
}

void ParetoPlot::setObjectives(Objective x, Objective y) {
  m_x->setCurrentIndex(static_cast<int>(x));
  m_y->setCurrentIndex(static_cast<int>(y));
  refresh();
}

void ParetoPlot::refresh() {
  const auto ox = static_cast<Objective>(m_x->currentData().toInt());
  const auto oy = static_cast<Objective>(m_y->currentData().toInt());
  m_points.clear();
  std::vector<std::pair<double, double>> xy;
  for (int r = 0; r < m_model->keptRows(); ++r) {
    const DraftRow& row = m_model->row(r);
    const auto vx = objectiveValue(row, ox), vy = objectiveValue(row, oy);
    if (!vx || !vy) continue;
    m_points.push_back({*vx, *vy, row.draft.id, r, false});
    xy.emplace_back(*vx, *vy);
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
  m_plot->xAxis->setLabel(QString::fromUtf8(objectiveTitle(ox)));
  m_plot->yAxis->setLabel(QString::fromUtf8(objectiveTitle(oy)));
  m_summary->setText(tr("%1 drafts, %2 on the front").arg(m_points.size()).arg(frontPts.size()));
  if (!m_userZoomed) resetView();
  showSelection();
}

void ParetoPlot::resetView() {
  m_userZoomed = false;
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
  m_selected->setData(sx, sy);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int ParetoPlot::pointAt(const QPoint& pixel) const {
  int best = -1;
  double bestD = 8.0 * 8.0;  // pixels
  for (int i = 0; i < static_cast<int>(m_points.size()); ++i) {
    const double px = m_plot->xAxis->coordToPixel(m_points[i].x) - pixel.x();
    const double py = m_plot->yAxis->coordToPixel(m_points[i].y) - pixel.y();
    const double d = px * px + py * py;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

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
        if (i >= 0) {
          QList<quint64> ids;
          if (me->modifiers() & Qt::ControlModifier) ids = m_selection->ids();
          if (!ids.contains(m_points[i].id)) ids.prepend(m_points[i].id);
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
        QToolTip::hideText();
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
