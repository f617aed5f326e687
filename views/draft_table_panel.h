// SPDX-License-Identifier: Apache-2.0
// The drafts table with its filter box and "show pruned" toggle, kept in step with the shared selection.
#pragma once
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace pimgui {

class DraftFilterProxy;
class DraftSelection;
class DraftTableModel;

class DraftTablePanel : public QWidget {
  Q_OBJECT
 public:
  DraftTablePanel(DraftTableModel* model, DraftSelection* selection, QWidget* parent = nullptr);
  QTableView* view() const { return m_view; }
  DraftFilterProxy* proxy() const { return m_proxy; }
  QLineEdit* filterBox() const { return m_filter; }
  QLabel* countLabel() const { return m_count; }
  QCheckBox* showPrunedBox() const { return m_showPruned; }
  void setPrunedNote(const QString& note);

 signals:
  void showPrunedToggled(bool on);

 private:
  void pushSelection();  // table -> shared selection
  void pullSelection();  // shared selection -> table
  /// Widths of the target's choice columns (DraftTableModel::choiceAxis), after each reset.
  void sizeChoiceColumns();
  void updateCount();

  DraftTableModel* m_model;
  DraftSelection* m_selection;
  DraftFilterProxy* m_proxy;
  QTableView* m_view;
  QLineEdit* m_filter;
  QCheckBox* m_showPruned;
  QLabel* m_count;
  QString m_prunedNote;
  bool m_syncing = false;
};

}  // namespace pimgui
