// SPDX-License-Identifier: Apache-2.0
// CSV export of drafts-table rows: every row or only the selected ones go through this one writer.
#pragma once
#include <QString>
#include <span>

namespace pimgui {

class DraftTableModel;

/// Writes `rows` (row indices of `model`, in this order) as RFC 4180 CSV: a header line naming every column
/// with its unit, one line per row, comma-separated, CRLF line ends, every field quoted with quotes doubled.
/// Numbers are written at full precision in the header's unit (not the table's rounded text); unknown
/// values are empty fields. The file is replaced atomically (QSaveFile). On failure returns false and sets
/// `error` to a message naming the file.
bool writeDraftsCsv(const DraftTableModel& model, std::span<const int> rows, const QString& path,
                    QString* error = nullptr);

/// The CSV header cell of `column` (the table's title with its unit).
QString csvHeader(const DraftTableModel& model, int column);

}  // namespace pimgui
