// SPDX-License-Identifier: Apache-2.0
// The window's run history (issue 17, item 11): every exploration of this window session, newest last, with
// its problem, settings, best result and time. Each entry keeps what the views need to show the run again
// (its records, baselines and progress) and its evaluated drafts' objectives, so a past run can be brought
// back into the views or overlaid on the Pareto plot as a ghost beside the current one.
#pragma once
#include <QAbstractTableModel>
#include <QDateTime>
#include <QWidget>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "engine/search/explorer.h"
#include "views/pareto_plot.h"
#include "views/session_config.h"

class QPushButton;
class QTableView;

namespace pimgui {

struct RunEntry {
  int number = 0;  // 1 for the window's first run; kept when older entries are dropped
  SessionConfig config;
  QString problem;  // the problem's title, backend included
  std::shared_ptr<const std::vector<pim::DraftRecord>> records;
  std::vector<pim::Baseline> baselines;
  pim::ExploreProgress progress;
  std::optional<double> predictorErrorPct;
  QString note;
  double wallSeconds = 0;  // from Explore to the last row shown, as "Done in" said
  bool cancelled = false;
  QString origin;  // "" for an exploration; "opened <file>" for a session file's run
  QDateTime ended;
  std::shared_ptr<const ParetoGhost> objectives;  // the evaluated drafts, labelled "front of run n"
};

/// "predictor · pimscope model · passes I+II · 3 of 3 rules · what-if hardware": how `c` explores (the
/// problem's title says which tensors are resident).
QString runSettingsText(const SessionConfig& c);

class RunHistory : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Number, Problem, Best, Simulated, Time, Settings, Ended, ColumnCount };
  /// Each entry holds a run's records: the oldest go past this many (their number stays with the rest).
  static constexpr std::size_t kMaxRuns = 20;

  explicit RunHistory(QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  /// Adds `e` as the newest run, numbered nextNumber(); returns its row.
  int append(RunEntry e);
  /// Replaces the history with `entries` as numbered (a session file's history), oldest first.
  void restore(std::vector<RunEntry> entries);
  int nextNumber() const { return m_next; }
  const RunEntry& entry(int row) const { return m_entries.at(static_cast<std::size_t>(row)); }
  /// The row of run `number`, -1 when it is not (or no longer) in the history.
  int rowOf(int number) const;

 private:
  std::deque<RunEntry> m_entries;
  int m_next = 1;
};

/// The Run history dock: the table, "Show in views" (double-click does the same), "Overlay on Pareto plot"
/// and "Remove overlay".
class RunHistoryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunHistoryPanel(RunHistory* history, QWidget* parent = nullptr);
  QTableView* view() const { return m_view; }
  /// The selected entry's row, -1 without one.
  int selectedRow() const;
  void selectRow(int row);
  /// Enables "Remove overlay" while the plot shows a run of the history as its ghost.
  void setOverlayShown(bool shown);

 signals:
  void showRequested(int row);
  void overlayRequested(int row);
  void overlayRemoved();

 private:
  void updateButtons();

  RunHistory* m_history;
  QTableView* m_view;
  QPushButton* m_show;
  QPushButton* m_overlay;
  QPushButton* m_removeOverlay;
};

}  // namespace pimgui
