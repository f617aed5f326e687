// SPDX-License-Identifier: Apache-2.0
#include "views/run_history.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace pimgui {

QString runSettingsText(const SessionConfig& c) {
  QStringList parts;
  parts << QString::fromStdString(c.strategy);
  if (c.maxSimulations > 0) parts << QObject::tr("at most %1 simulations").arg(c.maxSimulations);
  parts << QObject::tr("%1 model").arg(QString::fromStdString(std::string(pim::labelModelName(c.model))));
  if (c.crossbarTiming != pim::xbar::TimingModel::PimcompNn)  // the default goes unsaid, as before the box
    parts << QObject::tr("%1 timing")
                 .arg(QString::fromStdString(std::string(pim::xbar::timingModelName(c.crossbarTiming))));
  QStringList passes;
  if (c.stagedRearrangement) passes << QStringLiteral("I");
  if (c.groupCommands) passes << QStringLiteral("II");
  parts << (passes.isEmpty() ? QObject::tr("no passes") : QObject::tr("passes %1").arg(passes.join('+')));
  parts << QObject::tr("%1 of %2 rules")
               .arg(std::count(c.rules.begin(), c.rules.end(), true))
               .arg(c.rules.size());
  if (c.backendOverride) parts << QObject::tr("what-if hardware");
  return parts.join(QStringLiteral(" · "));
}

namespace {

QString bestText(const RunEntry& e) {
  if (!e.progress.best) return QObject::tr("–");
  return QObject::tr("%1 µs").arg(e.progress.bestNs / 1e3, 0, 'f', 3);
}

QString timeText(const RunEntry& e) {
  if (!e.origin.isEmpty()) return e.origin;
  const QString t = QObject::tr("%1 s").arg(e.wallSeconds, 0, 'f', 1);
  return e.cancelled ? QObject::tr("%1, cancelled").arg(t) : t;
}

}  // namespace

RunHistory::RunHistory(QObject* parent) : QAbstractTableModel(parent) {}

int RunHistory::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int RunHistory::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunHistory::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RunEntry& e = entry(index.row());
  if (role == Qt::ToolTipRole) {
    return tr("Run %1: %2\n%3\nDouble-click to show it in the views again.")
        .arg(e.number)
        .arg(e.problem, runSettingsText(e.config));
  }
  if (role == Qt::TextAlignmentRole && (index.column() == Number || index.column() == Simulated))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Number:
      return e.number;
    case Problem:
      return e.problem;
    case Settings:
      return runSettingsText(e.config);
    case Best:
      return bestText(e);
    case Simulated:
      return QVariant::fromValue<qulonglong>(e.progress.simulated);
    case Time:
      return timeText(e);
    case Ended:
      return e.ended.toString(QStringLiteral("HH:mm:ss"));
    default:
      return {};
  }
}

QVariant RunHistory::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Number:
      return tr("#");
    case Problem:
      return tr("Problem");
    case Settings:
      return tr("Settings");
    case Best:
      return tr("Best");
    case Simulated:
      return tr("Simulated");
    case Time:
      return tr("Time");
    case Ended:
      return tr("Ended");
    default:
      return {};
  }
}

int RunHistory::append(RunEntry e) {
  if (m_entries.size() >= kMaxRuns) {
    beginRemoveRows({}, 0, 0);
    m_entries.pop_front();
    endRemoveRows();
  }
  e.number = m_next++;
  const int row = rowCount();
  beginInsertRows({}, row, row);
  m_entries.push_back(std::move(e));
  endInsertRows();
  return row;
}

void RunHistory::restore(std::vector<RunEntry> entries) {
  beginResetModel();
  m_entries.assign(std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
  while (m_entries.size() > kMaxRuns) m_entries.pop_front();
  m_next = m_entries.empty() ? 1 : m_entries.back().number + 1;
  endResetModel();
}

int RunHistory::rowOf(int number) const {
  const auto it =
      std::find_if(m_entries.begin(), m_entries.end(), [&](const RunEntry& e) { return e.number == number; });
  return it == m_entries.end() ? -1 : static_cast<int>(it - m_entries.begin());
}

RunHistoryPanel::RunHistoryPanel(RunHistory* history, QWidget* parent)
    : QWidget(parent),
      m_history(history),
      m_view(new QTableView),
      m_show(new QPushButton(tr("Show in views"))),
      m_overlay(new QPushButton(tr("Overlay on Pareto plot"))),
      m_removeOverlay(new QPushButton(tr("Remove overlay"))) {
  m_view->setModel(history);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->verticalHeader()->hide();
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->setWordWrap(false);
  m_show->setToolTip(
      tr("Shows the selected run's drafts, plots and baselines in the views and sets the "
         "control panel to its problem (nothing is explored again)."));
  m_overlay->setToolTip(
      tr("Draws the selected run's front on the Pareto plot as a dashed line beside the "
         "run the views show, on the plot's current axes."));
  m_removeOverlay->setToolTip(tr("Takes the overlaid run off the Pareto plot."));
  m_removeOverlay->setEnabled(false);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_show);
  buttons->addWidget(m_overlay);
  buttons->addWidget(m_removeOverlay);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_view);
  layout->addLayout(buttons);

  connect(m_show, &QPushButton::clicked, this, [this] {
    if (const int r = selectedRow(); r >= 0) emit showRequested(r);
  });
  connect(m_overlay, &QPushButton::clicked, this, [this] {
    if (const int r = selectedRow(); r >= 0) emit overlayRequested(r);
  });
  connect(m_removeOverlay, &QPushButton::clicked, this, &RunHistoryPanel::overlayRemoved);
  connect(m_view, &QTableView::doubleClicked, this,
          [this](const QModelIndex& i) { emit showRequested(i.row()); });
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunHistoryPanel::updateButtons);
  connect(history, &QAbstractItemModel::rowsInserted, this, [this] {
    m_view->resizeColumnsToContents();
    m_view->scrollToBottom();
  });
  updateButtons();
}

int RunHistoryPanel::selectedRow() const {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  return rows.isEmpty() ? -1 : rows.front().row();
}

void RunHistoryPanel::selectRow(int row) { m_view->selectRow(row); }

void RunHistoryPanel::setOverlayShown(bool shown) { m_removeOverlay->setEnabled(shown); }

void RunHistoryPanel::updateButtons() {
  const bool any = selectedRow() >= 0;
  m_show->setEnabled(any);
  m_overlay->setEnabled(any);
}

}  // namespace pimgui
