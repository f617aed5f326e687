// SPDX-License-Identifier: Apache-2.0
#include "views/draft_table_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>
#include <limits>

#include "engine/core/problem.h"
#include "engine/target/registry.h"

namespace pimgui {

namespace {
QString micro(double ns) { return QString::number(ns / 1e3, 'f', 2); }
}  // namespace

DraftTableModel::DraftTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void DraftTableModel::reset(std::shared_ptr<const pim::Problem> problem) {
  beginResetModel();
  m_problem = std::move(problem);
  m_candidates = m_problem ? pim::targetOf(m_problem->backend()).candidates(*m_problem) : nullptr;
  m_ids.reset();
  m_facts.clear();
  m_unreported.fill(false);
  if (m_problem) {
    const pim::ITarget& target = pim::targetOf(m_problem->backend());
    m_ids.emplace(target.candidateIds(*m_problem));
    m_facts = target.factColumns();
    m_unreported[InRearr] = !pim::timesPhase(target, 0);
    m_unreported[OutRearr] = !pim::timesPhase(target, 2);
    m_unreported[Padding] = !target.reportsPadding();
  }
  m_predictedText = QStringLiteral("predicted");
  m_rows.clear();
  m_labels.clear();
  m_index.clear();
  m_kept = 0;
  m_simulated = 0;
  endResetModel();
  emit rowsChanged();
}

void DraftTableModel::setPredictionAccuracy(const pim::MeasuredError& measured, bool outOfDistribution) {
  QString text = measured.confirmations == 0 ? QStringLiteral("predicted (error not measured yet)")
                                             : QStringLiteral("predicted ±%1% (%L2 confirmed)")
                                                   .arg(measured.mapePct(), 0, 'f', 1)
                                                   .arg(measured.confirmations);
  if (outOfDistribution) text += QStringLiteral(" · out of distribution");
  if (text == m_predictedText) return;
  m_predictedText = text;
  if (!m_rows.empty()) emit dataChanged(index(0, Source), index(static_cast<int>(m_rows.size()) - 1, Source));
}

bool DraftTableModel::isTextColumn(int column) const {
  if (const pim::ChoiceAxis* a = choiceAxis(column)) return !a->numeric;
  return column == Parts || column == Source;
}

const pim::ChoiceAxis* DraftTableModel::choiceAxis(int column) const {
  const int a = column - ColumnCount;
  if (!m_ids || a < 0 || a >= static_cast<int>(m_ids->axes().size())) return nullptr;
  return &m_ids->axes()[static_cast<std::size_t>(a)];
}

const pim::StatDecl* DraftTableModel::factColumn(int column) const {
  const int f = column - ColumnCount - (m_ids ? static_cast<int>(m_ids->axes().size()) : 0);
  if (f < 0 || f >= static_cast<int>(m_facts.size())) return nullptr;
  return &m_facts[static_cast<std::size_t>(f)];
}

std::optional<double> DraftTableModel::sortValue(int r, int column) const {
  if (isTextColumn(column)) return std::nullopt;
  return number(m_rows[static_cast<std::size_t>(r)], column)
      .value_or(std::numeric_limits<double>::infinity());
}

namespace {
int simulatedIn(const DraftRow& row) { return row.simulated || !row.error.empty() ? 1 : 0; }
}  // namespace

bool DraftTableModel::updateRecords(const std::vector<pim::DraftRecord>& records, int maxNew,
                                    bool diffKnown) {
  const int known = m_kept;
  const int available = static_cast<int>(records.size());
  const int fresh = available - known > maxNew ? known + maxNew : available;
  // Records are append-only with stable indices, so the first `known` rows are the same drafts.
  int firstChanged = -1, lastChanged = -1;
  for (int r = 0; diffKnown && r < std::min(known, fresh); ++r) {
    DraftRow& row = m_rows[static_cast<std::size_t>(r)];
    const pim::DraftRecord& rec = records[static_cast<std::size_t>(r)];
    const bool changed = row.predictedNs != rec.predictedNs ||
                         static_cast<bool>(row.simulated) != static_cast<bool>(rec.simulated) ||
                         row.error != rec.error;
    if (!changed) continue;
    m_simulated -= simulatedIn(row);
    row = DraftRow::fromRecord(rec);
    m_simulated += simulatedIn(row);
    if (firstChanged < 0) firstChanged = r;
    lastChanged = r;
  }
  if (firstChanged >= 0) emit dataChanged(index(firstChanged, 0), index(lastChanged, columnCount() - 1));
  if (fresh > known) {
    beginInsertRows({}, known, fresh - 1);
    std::vector<DraftRow> added;
    added.reserve(static_cast<std::size_t>(fresh - known));
    for (int r = known; r < fresh; ++r) {
      added.push_back(DraftRow::fromRecord(records[static_cast<std::size_t>(r)]));
      m_simulated += simulatedIn(added.back());
    }
    m_rows.insert(m_rows.begin() + known, std::make_move_iterator(added.begin()),
                  std::make_move_iterator(added.end()));
    m_labels.insert(
        m_labels.begin() + std::min<std::size_t>(m_labels.size(), static_cast<std::size_t>(known)),
        static_cast<std::size_t>(fresh - known), QString());
    m_kept = fresh;
    // Pruned rows (if any) moved down; rebuild their part of the index together with the new rows.
    for (int r = known; r < static_cast<int>(m_rows.size()); ++r)
      m_index.insert(m_rows[static_cast<std::size_t>(r)].draft.id, r);
    endInsertRows();
  }
  if (firstChanged >= 0 || fresh > known) emit rowsChanged();
  return fresh < available;
}

void DraftTableModel::appendPruned(std::vector<DraftRow> rows) {
  if (rows.empty()) return;
  const int first = static_cast<int>(m_rows.size());
  beginInsertRows({}, first, first + static_cast<int>(rows.size()) - 1);
  for (auto& row : rows) {
    m_index.insert(row.draft.id, static_cast<int>(m_rows.size()));
    m_rows.push_back(std::move(row));
  }
  m_labels.resize(m_rows.size());
  endInsertRows();
  emit rowsChanged();
}

int DraftTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DraftTableModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return ColumnCount + (m_ids ? static_cast<int>(m_ids->axes().size()) : 0) +
         static_cast<int>(m_facts.size());
}

QString DraftTableModel::label(int r) const {
  if (m_labels.size() < m_rows.size()) m_labels.resize(m_rows.size());
  QString& cached = m_labels[static_cast<std::size_t>(r)];
  if (cached.isEmpty() && m_candidates)
    cached = QString::fromStdString(m_candidates->label(m_rows[static_cast<std::size_t>(r)].draft));
  return cached;
}

QString DraftTableModel::source(const DraftRow& row) const {
  if (row.pruned)
    return QStringLiteral("pruned (rule %1: %2)").arg(row.rule).arg(QString::fromStdString(row.ruleName));
  if (!row.error.empty()) return QStringLiteral("failed: ") + QString::fromStdString(row.error);
  if (row.simulated)
    return QString::fromStdString(std::string(pim::provenanceName(row.simulated->provenance)));
  if (row.predictedNs) return m_predictedText;
  return QStringLiteral("pending");
}

std::optional<double> DraftTableModel::number(const DraftRow& row, int column) const {
  if (const pim::ChoiceAxis* a = choiceAxis(column)) {
    if (row.draft.id >= m_ids->count()) return std::nullopt;  // a baseline's record (no draft)
    const auto c = m_ids->choiceOf(row.draft.id)[static_cast<std::size_t>(column - ColumnCount)];
    return static_cast<double>(a->values[static_cast<std::size_t>(c)]);
  }
  if (const pim::StatDecl* f = factColumn(column)) {
    if (!row.simulated) return std::nullopt;
    for (const auto& [key, value] : row.simulated->facts)
      if (key == f->key) return value;
    return std::nullopt;
  }
  switch (column) {
    case Id:
      return static_cast<double>(row.draft.id);
    case Predicted:
      return row.predictedNs ? std::optional(*row.predictedNs) : std::nullopt;
    case UnitsUsed:
      // Pruned rows carry the bank count of their layout (see DraftRow::banksUsed).
      if (!row.simulated && row.unitsUsed) return static_cast<double>(*row.unitsUsed);
      break;
    default:
      break;
  }
  if (!row.simulated || !reports(column)) return std::nullopt;
  const pim::Evaluation& e = *row.simulated;
  switch (column) {
    case Simulated:
      return e.timeNs;
    case InRearr:
      return e.ns(0);
    case Compute:
      return e.ns(1);
    case OutRearr:
      return e.ns(2);
    case Energy:
      return e.energyPj;
    case UnitsUsed:
      return e.unitsUsed;
    case Padding:
      return static_cast<double>(e.paddingBytes);
    default:
      return std::nullopt;
  }
}

QVariant DraftTableModel::display(const DraftRow& row, int r, int column) const {
  if (column == Parts) return label(r);
  if (column == Source) return source(row);
  const std::optional<double> v = number(row, column);
  if (!v) return QStringLiteral("–");
  if (const pim::ChoiceAxis* a = choiceAxis(column)) {
    if (a->numeric) return QString::number(static_cast<qlonglong>(*v));
    const auto c = m_ids->choiceOf(row.draft.id)[static_cast<std::size_t>(column - ColumnCount)];
    return QString::fromStdString(a->texts[static_cast<std::size_t>(c)]);
  }
  if (const pim::StatDecl* f = factColumn(column))
    return f->integral ? QLocale().toString(static_cast<qlonglong>(*v)) : QLocale().toString(*v, 'g', 4);
  switch (column) {
    case Id:
      return QString::number(row.draft.id);
    case Energy:
      return QString::number(*v / 1e6, 'f', 3);
    case UnitsUsed:
      return QString::number(static_cast<int>(*v));
    case Padding:
      return QLocale().formattedDataSize(static_cast<qint64>(*v), 1, QLocale::DataSizeTraditionalFormat);
    default:
      return micro(*v);
  }
}

QVariant DraftTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const DraftRow& row = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return display(row, index.row(), index.column());
    case Qt::ToolTipRole:
      if (index.column() == Source && row.pruned) return QString::fromStdString(row.reason);
      if (index.column() == Source && !row.error.empty()) return QString::fromStdString(row.error);
      // The whole provenance: a narrow column cuts "· out of distribution" off.
      if (index.column() == Source && row.predictedNs && !row.simulated) return m_predictedText;
      if (index.column() == Parts) return label(index.row());  // the whole label: the column cuts it
      return {};
    case Qt::TextAlignmentRole:
      if (isTextColumn(index.column())) return int(Qt::AlignLeft | Qt::AlignVCenter);
      return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (row.pruned) return QBrush(QColor(140, 140, 140));
      if (!row.error.empty()) return QBrush(QColor(170, 40, 40));
      return {};
    case SortRole: {
      if (isTextColumn(index.column())) return display(row, index.row(), index.column());
      // Unknown values sort after every known one in ascending order.
      return number(row, index.column()).value_or(std::numeric_limits<double>::infinity());
    }
    case DraftIdRole:
      return QVariant::fromValue<quint64>(row.draft.id);
    case PrunedRole:
      return row.pruned;
    default:
      return {};
  }
}

bool DraftTableModel::reports(int column) const {
  return column < 0 || column >= ColumnCount || !m_unreported[static_cast<std::size_t>(column)];
}

QString DraftTableModel::unitName() const {
  if (!m_problem) return QStringLiteral("unit");
  const pim::Backend& b = m_problem->backend();
  return QString::fromStdString(pim::targetOf(b).geometry(b).innerName);
}

QVariant DraftTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return QAbstractTableModel::headerData(section, o, role);
  static const char* titles[ColumnCount] = {"Id",
                                            "Parts [groups, cores, rep]",
                                            "Predicted (µs)",
                                            "Simulated (µs)",
                                            "In rearr. (µs)",
                                            "Compute (µs)",
                                            "Out rearr. (µs)",
                                            "Energy (µJ)",
                                            "",  // unitName()
                                            "Padding",
                                            "Provenance"};
  static const char* tips[ColumnCount] = {"Dense draft id in the draft space",
                                          "Per part: PIM groups, cores per group, representative mapping",
                                          "Predicted end-to-end time",
                                          "Simulated end-to-end time",
                                          "Input rearrangement (host layout to per-core bank regions)",
                                          "Compute on the PIM cores",
                                          "Output rearrangement (partial results back to host layout)",
                                          "Simulated energy",
                                          "",  // unitName()
                                          "Bytes added so every core of a group shares address offsets",
                                          "Where the numbers come from"};
  if (const pim::ChoiceAxis* a = choiceAxis(section)) {
    if (role == Qt::DisplayRole) return QString::fromStdString(a->label);
    if (role == Qt::ToolTipRole)
      return tr("Kernel-level choice beside the draft (the backend's own: %1)")
          .arg(QString::fromStdString(a->texts.front()));
    return {};
  }
  if (const pim::StatDecl* f = factColumn(section)) {
    if (role == Qt::DisplayRole) return QString::fromStdString(f->label);
    if (role == Qt::ToolTipRole) return QString::fromStdString(f->description + " (" + f->unit + ")");
    return {};
  }
  if (section < 0 || section >= ColumnCount) return {};
  if (section == UnitsUsed) {
    QString units = unitName() + QStringLiteral("s");
    units[0] = units[0].toUpper();
    if (role == Qt::DisplayRole) return units;
    if (role == Qt::ToolTipRole) return tr("%1 holding data").arg(units);
  }
  if (section == Parts && m_candidates && role == Qt::DisplayRole)
    return QString::fromStdString(m_candidates->labelTitle());
  if (role == Qt::DisplayRole) return QString::fromUtf8(titles[section]);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(tips[section]);
  return {};
}

}  // namespace pimgui
