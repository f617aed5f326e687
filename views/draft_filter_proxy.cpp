// SPDX-License-Identifier: Apache-2.0
#include "views/draft_filter_proxy.h"

#include "views/draft_table_model.h"

namespace pimgui {

DraftFilterProxy::DraftFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(DraftTableModel::SortRole);
  setDynamicSortFilter(true);
}

void DraftFilterProxy::setShowPruned(bool show) {
  if (show == m_showPruned) return;
  m_showPruned = show;
  invalidateFilter();
}

void DraftFilterProxy::setText(const QString& text) {
  if (text == m_text) return;
  m_text = text;
  invalidateFilter();
}

bool DraftFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  // Numeric columns compare doubles straight from the model: sorting 100,000 rows through QVariant is several
  // times slower and would stall the first live insertion.
  if (const auto* m = qobject_cast<const DraftTableModel*>(sourceModel())) {
    const auto a = m->sortValue(left.row(), left.column());
    if (a) {
      const double b = *m->sortValue(right.row(), right.column());
      // Equal values keep draft-id order, so a live run and its reopened session list rows identically.
      if (*a != b) return *a < b;
      return m->row(left.row()).draft.id < m->row(right.row()).draft.id;
    }
  }
  return QSortFilterProxyModel::lessThan(left, right);
}

bool DraftFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QAbstractItemModel* m = sourceModel();
  if (!m_showPruned && m->index(sourceRow, 0, sourceParent).data(DraftTableModel::PrunedRole).toBool())
    return false;
  if (m_text.isEmpty()) return true;
  for (int c : {int(DraftTableModel::Id), int(DraftTableModel::Parts), int(DraftTableModel::Source)}) {
    if (m->index(sourceRow, c, sourceParent).data().toString().contains(m_text, Qt::CaseInsensitive))
      return true;
  }
  return false;
}

}  // namespace pimgui
