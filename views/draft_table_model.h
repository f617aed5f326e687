// SPDX-License-Identifier: Apache-2.0
// The drafts table: one row per kept draft the exploration knows about, then (optionally) pruned drafts with
// the rule that removed them. Rows only grow while a run is live, so views keep their scroll and selection;
// data() formats on demand and caches only the parts label, which keeps 100,000 rows smooth.
#pragma once
#include <QAbstractTableModel>
#include <QHash>
#include <QString>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "engine/core/candidate_space.h"
#include "engine/core/kernel_choices.h"
#include "engine/target/target.h"
#include "views/draft_row.h"

namespace pimgui {

class DraftTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id,
    Parts,
    Predicted,
    Simulated,
    InRearr,
    Compute,
    OutRearr,
    Energy,
    UnitsUsed,
    Padding,
    Source,
    ColumnCount
  };
  enum Role { SortRole = Qt::UserRole + 1, DraftIdRole, PrunedRole };

  explicit DraftTableModel(QObject* parent = nullptr);

  /// Starts a new session: clears every row (and the prediction accuracy).
  void reset(std::shared_ptr<const pim::Problem> problem);
  /// What predicted rows say of their error: the error measured on the run's confirmations and whether the
  /// problem is out of the model's training distribution (ExploreProgress). Predicted rows then read
  /// "predicted ±x% (n confirmed)", "predicted (error not measured yet)", and "· out of distribution".
  void setPredictionAccuracy(const pim::MeasuredError& measured, bool outOfDistribution);
  /// The problem the rows are drafts of; nullptr before the first reset.
  const pim::Problem* problem() const { return m_problem.get(); }
  /// The problem's target's inner unit, singular ("bank", "core"): names the units-used column and axis.
  QString unitName() const;
  /// Merges a fresh snapshot of the explorer's records (append-only: existing rows update in place). At most
  /// `maxNew` new rows are inserted per call so a sorted view never stalls on one huge insertion; returns
  /// true when rows of `records` remain to be inserted. `diffKnown` false skips comparing the rows already
  /// listed (the later calls that insert the rest of a snapshot whose known rows were merged by the first).
  bool updateRecords(const std::vector<pim::DraftRecord>& records,
                     int maxNew = std::numeric_limits<int>::max(), bool diffKnown = true);
  /// Numeric sort key of a cell (+inf when unknown), for the proxy's fast comparisons; nullopt for text
  /// columns.
  std::optional<double> sortValue(int row, int column) const;
  bool isTextColumn(int column) const;
  /// Whether the problem's target reports the figure of a fixed column (ITarget::reportsPadding, the phases
  /// it times: timesPhase); a column it does not report is empty, and hidden in the table.
  bool reports(int column) const;
  /// Columns past ColumnCount are the target's kernel-level choices (ITarget::choiceAxes), one per axis;
  /// the axis of such a column, nullptr for the fixed ones.
  const pim::ChoiceAxis* choiceAxis(int column) const;
  /// Columns after the choices are the figures the target declares of an evaluation
  /// (ITarget::factColumns, read from Evaluation::facts); the figure of such a column, nullptr otherwise.
  const pim::StatDecl* factColumn(int column) const;
  /// Every figure the target declares beside the fixed ones (ITarget::factColumns), in column order.
  const std::vector<pim::StatDecl>& facts() const { return m_facts; }
  /// Appends pruned drafts (listed off the GUI thread).
  void appendPruned(std::vector<DraftRow> rows);
  int keptRows() const { return m_kept; }
  /// Kept rows with a simulation or a failure: what the views show as simulated.
  int simulatedRows() const { return m_simulated; }
  int prunedRows() const { return static_cast<int>(m_rows.size()) - m_kept; }

  const DraftRow& row(int r) const { return m_rows[static_cast<std::size_t>(r)]; }
  const std::vector<DraftRow>& rows() const { return m_rows; }
  /// Row of draft `id`, -1 if not listed.
  int rowOf(std::uint64_t id) const { return m_index.value(id, -1); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 signals:
  void rowsChanged();

 private:
  QString label(int r) const;
  QString source(const DraftRow& row) const;
  QVariant display(const DraftRow& row, int r, int column) const;
  std::optional<double> number(const DraftRow& row, int column) const;

  std::shared_ptr<const pim::Problem> m_problem;
  std::unique_ptr<pim::ICandidateSpace> m_candidates;     // of m_problem's target: labels the rows
  std::optional<pim::CandidateIds> m_ids;                 // its candidate ids: the choice columns
  std::vector<pim::StatDecl> m_facts;                     // its target's figures shown as columns
  std::array<bool, ColumnCount> m_unreported{};           // !reports(), per fixed column
  QString m_predictedText = QStringLiteral("predicted");  // provenance of rows with a prediction only
  std::vector<DraftRow> m_rows;                           // kept rows [0, m_kept), then pruned rows
  int m_kept = 0;
  int m_simulated = 0;  // kept rows with a simulation or an error
  QHash<quint64, int> m_index;
  mutable std::vector<QString> m_labels;  // lazily filled parts labels
};

}  // namespace pimgui
