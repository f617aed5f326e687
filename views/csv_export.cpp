// SPDX-License-Identifier: Apache-2.0
#include "views/csv_export.h"

#include <QCoreApplication>
#include <QDir>
#include <QSaveFile>
#include <cmath>

#include "views/draft_table_model.h"

namespace pimgui {

namespace {

QString quote(QString s) {
  return QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + '"';
}

/// Factor from the model's numeric value (ns, pJ, bytes) to the unit of the column's header.
double scaleOf(int column) {
  switch (column) {
    case DraftTableModel::Predicted:
    case DraftTableModel::Simulated:
    case DraftTableModel::InRearr:
    case DraftTableModel::Compute:
    case DraftTableModel::OutRearr:
      return 1e-3;  // ns -> µs
    case DraftTableModel::Energy:
      return 1e-6;  // pJ -> µJ
    default:
      return 1.0;
  }
}

QString cell(const DraftTableModel& model, int row, int column) {
  if (column == DraftTableModel::Id) return QString::number(model.row(row).draft.id);  // exact, not a double
  if (!model.reports(column)) return {};  // the same columns in every file; this target's stay empty
  const std::optional<double> v = model.sortValue(row, column);
  if (!v) return model.index(row, column).data().toString();  // text column
  if (!std::isfinite(*v)) return {};                          // unknown
  return QString::number(*v * scaleOf(column), 'g', 12);
}

}  // namespace

QString csvHeader(const DraftTableModel& model, int column) {
  // The table shows padding as "1.2 KiB"; the file holds bytes, so the header says so.
  if (column == DraftTableModel::Padding) return QStringLiteral("Padding (bytes)");
  if (column == DraftTableModel::UnitsUsed) return objectiveTitle(Objective::UnitsUsed, model.unitName());
  return model.headerData(column, Qt::Horizontal).toString();
}

bool writeDraftsCsv(const DraftTableModel& model, std::span<const int> rows, const QString& path,
                    QString* error) {
  QSaveFile f(path);
  auto fail = [&] {
    if (error)
      *error = QCoreApplication::translate("CsvExport", "Cannot write %1: %2")
                   .arg(QDir::toNativeSeparators(path), f.errorString());
    return false;
  };
  if (!f.open(QIODevice::WriteOnly)) return fail();
  const int columns = model.columnCount();
  QStringList fields;
  fields.reserve(columns);
  auto line = [&] {
    f.write(fields.join(QLatin1Char(',')).toUtf8());
    f.write("\r\n");
    fields.clear();
  };
  for (int c = 0; c < columns; ++c) fields << quote(csvHeader(model, c));
  line();
  for (int r : rows) {
    for (int c = 0; c < columns; ++c) fields << quote(cell(model, r, c));
    line();
  }
  if (f.error() != QFileDevice::NoError) {
    f.cancelWriting();
    return fail();
  }
  return f.commit() || fail();
}

}  // namespace pimgui
