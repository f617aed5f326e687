// SPDX-License-Identifier: Apache-2.0
// Sorting and filtering of the drafts table: numeric sort on every column, a free-text filter over id, parts
// and provenance, and the "show pruned" toggle.
#pragma once
#include <QSortFilterProxyModel>

namespace pimgui {

class DraftFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit DraftFilterProxy(QObject* parent = nullptr);
  void setShowPruned(bool show);
  bool showPruned() const { return m_showPruned; }
  void setText(const QString& text);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  bool m_showPruned = false;
  QString m_text;
};

}  // namespace pimgui
