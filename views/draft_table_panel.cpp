// SPDX-License-Identifier: Apache-2.0
#include "views/draft_table_panel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include "views/draft_filter_proxy.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/pruned_lister.h"

namespace pimgui {

DraftTablePanel::DraftTablePanel(DraftTableModel* model, DraftSelection* selection, QWidget* parent)
    : QWidget(parent), m_model(model), m_selection(selection) {
  m_proxy = new DraftFilterProxy(this);
  m_proxy->setSourceModel(model);
  m_view = new QTableView;
  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(DraftTableModel::Simulated, Qt::AscendingOrder);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setAlternatingRowColors(true);
  m_view->verticalHeader()->setVisible(false);
  // Fixed row heights keep scrolling through 100,000 rows cheap (no per-row size hints).
  m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
  m_view->horizontalHeader()->setStretchLastSection(true);
  // Widths from the header text (not ResizeToContents, which would measure rows on every live update).
  for (int c = 0; c < DraftTableModel::ColumnCount; ++c) {
    const QString title = model->headerData(c, Qt::Horizontal).toString();
    m_view->setColumnWidth(c, m_view->horizontalHeader()->fontMetrics().horizontalAdvance(title) + 28);
  }
  m_view->setColumnWidth(DraftTableModel::Id, 80);
  m_view->setColumnWidth(DraftTableModel::Parts, 300);
  m_view->setWordWrap(false);

  m_filter = new QLineEdit;
  m_filter->setPlaceholderText(tr("Filter by id, parts or provenance (Ctrl+F)"));
  m_filter->setClearButtonEnabled(true);
  m_showPruned = new QCheckBox(tr("Show pruned (first %L1)").arg(kPrunedListCap));
  // The filter keeps room for the start of its placeholder and the larger share of the row ("Show pruned"
  // and a long count squeezed it to "Fi..."); the count wraps onto a second line instead of pushing it. Both
  // minimums stay small so the table never forces the window wider than the screen.
  m_filter->setMinimumWidth(m_filter->fontMetrics().horizontalAdvance(QStringLiteral("Filter by id, parts")) +
                            40);
  m_count = new QLabel;
  m_count->setWordWrap(true);
  m_count->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  m_count->setMinimumWidth(m_count->fontMetrics().horizontalAdvance(QStringLiteral("100,000 of 100,000")));
  auto* bar = new QHBoxLayout;
  bar->addWidget(m_filter, 3);
  bar->addWidget(m_showPruned);
  bar->addWidget(m_count, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(m_view, 1);

  connect(m_filter, &QLineEdit::textChanged, m_proxy, &DraftFilterProxy::setText);
  connect(m_showPruned, &QCheckBox::toggled, this, [this](bool on) {
    m_proxy->setShowPruned(on);
    emit showPrunedToggled(on);
  });
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] { pushSelection(); });
  connect(m_selection, &DraftSelection::changed, this, [this] { pullSelection(); });
  connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this] {
    updateCount();
    // A draft selected before its row was listed (an imported schedule, a drill-down from compare) is
    // highlighted when the row arrives.
    if (!m_selection->ids().isEmpty() && !m_view->selectionModel()->hasSelection()) pullSelection();
  });
  connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, [this] { updateCount(); });
  connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
    updateCount();
    sizeChoiceColumns();
    for (int c = 0; c < DraftTableModel::ColumnCount; ++c) m_view->setColumnHidden(c, !m_model->reports(c));
  });
  connect(m_proxy, &QAbstractItemModel::layoutChanged, this, [this] { updateCount(); });
  updateCount();
}

void DraftTablePanel::sizeChoiceColumns() {
  // A choice column is as wide as its header or its longest value's text, whichever is wider; a declared
  // figure's column as its header.
  const QFontMetrics fm = m_view->fontMetrics();
  for (int c = DraftTableModel::ColumnCount; c < m_model->columnCount(); ++c) {
    const pim::ChoiceAxis* axis = m_model->choiceAxis(c);
    if (!axis && !m_model->factColumn(c)) continue;
    int width = m_view->horizontalHeader()->fontMetrics().horizontalAdvance(
        m_model->headerData(c, Qt::Horizontal).toString());
    if (axis && !axis->numeric)
      for (const std::string& t : axis->texts)
        width = std::max(width, fm.horizontalAdvance(QString::fromStdString(t)));
    m_view->setColumnWidth(c, width + 28);
  }
}

void DraftTablePanel::setPrunedNote(const QString& note) {
  m_prunedNote = note;
  updateCount();
}

void DraftTablePanel::updateCount() {
  QString text = tr("%L1 of %L2 rows").arg(m_proxy->rowCount()).arg(m_model->rowCount());
  if (!m_prunedNote.isEmpty()) text += QStringLiteral(" · ") + m_prunedNote;
  m_count->setText(text);
}

void DraftTablePanel::pushSelection() {
  if (m_syncing) return;
  QList<quint64> ids;
  const QModelIndex current = m_view->currentIndex();
  if (current.isValid() && m_view->selectionModel()->isRowSelected(current.row(), {}))
    ids << current.data(DraftTableModel::DraftIdRole).value<quint64>();
  for (const QModelIndex& i : m_view->selectionModel()->selectedRows()) {
    const quint64 id = i.data(DraftTableModel::DraftIdRole).value<quint64>();
    if (!ids.contains(id)) ids << id;
  }
  m_syncing = true;
  m_selection->set(ids);
  m_syncing = false;
}

void DraftTablePanel::pullSelection() {
  if (m_syncing) return;
  m_syncing = true;
  QItemSelection sel;
  QModelIndex first;
  for (quint64 id : m_selection->ids()) {
    const int r = m_model->rowOf(id);
    if (r < 0) continue;
    const QModelIndex p = m_proxy->mapFromSource(m_model->index(r, 0));
    if (!p.isValid()) continue;
    if (!first.isValid()) first = p;
    sel.select(p, p.siblingAtColumn(m_proxy->columnCount() - 1));
  }
  m_view->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (first.isValid()) {
    m_view->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    m_view->scrollTo(first);
  }
  m_syncing = false;
}

}  // namespace pimgui
