// SPDX-License-Identifier: Apache-2.0
// MainWindow: schedule export of the selected draft and schedule import (File menu). The formats and the file
// handling live in views/schedule_io; this file only wires them to the selection, the session and dialogs.
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QStatusBar>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "views/draft_analysis.h"
#include "views/draft_selection.h"
#include "views/exploration_session.h"
#include "views/export_paths.h"
#include "views/main_window.h"
#include "views/schedule_io.h"

namespace pimgui {

void MainWindow::addScheduleActions(QMenu* file) {
  file->addAction(
      tr("Export selected &schedule…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this, [this] {
        // Named after the problem and the draft, with the suffix of the format chosen last time.
        const QString filter = m_scheduleFilter.isEmpty()
                                   ? scheduleExportFilters().section(QStringLiteral(";;"), 0, 0)
                                   : m_scheduleFilter;
        const QString suffix =
            filter.section(QStringLiteral("(*"), 1).section(QLatin1Char(' '), 0, 0).remove(QLatin1Char(')'));
        const auto current = m_selection->current();
        const QString what = current ? QStringLiteral("draft%1").arg(*current) : QStringLiteral("draft");
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export the selected draft"),
            suggestedExportPath(exportBaseName(m_session->config(), what) + suffix), scheduleExportFilters(),
            &m_scheduleFilter);
        if (path.isEmpty()) return;
        rememberExportFolder(path);
        QString error;
        if (exportSelectedSchedule(path, &error)) {
          statusBar()->showMessage(tr("Wrote %1").arg(path));
        } else {
          QMessageBox::warning(this, tr("Export failed"), error);
        }
      });
  file->addAction(tr("&Import schedule…"), QKeySequence(Qt::CTRL | Qt::Key_I), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a PIMScope schedule"), QString(),
                                                      tr("Schedule file (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!importSchedule(path, &error)) QMessageBox::warning(this, tr("Import failed"), error);
  });
  file->addAction(tr("Import &mapping…"), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import a CoMoNM mapping for the problem in the controls"),
                                     QString(), tr("Mapping file (*.map *.txt *.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!importMapping(path, &error)) QMessageBox::warning(this, tr("Import failed"), error);
  });
}

bool MainWindow::exportSelectedSchedule(const QString& path, QString* error) const {
  const auto current = m_selection->current();
  const auto a = m_analysis->latest();
  QString why;
  if (!current) {
    why = tr("select a draft to export first");
  } else if (!a || a->draft.id != *current || m_analysis->busy()) {
    why = tr("draft %1 is still being analysed; try again in a moment").arg(*current);
  } else {
    std::optional<double> predicted;
    for (const auto& r : m_session->records()) {
      if (r.draft.id == *current) predicted = r.predictedNs;
    }
    const auto format = scheduleExportFor(path, m_scheduleFilter);
    why = exportAnalysedDraft(*a, m_session->config().evalOptions(), predicted, format, path);
  }
  if (error) *error = why;
  return why.isEmpty();
}

// Not modal: the report stays beside the window while the user goes on. One line per sub-map, unwrapped in a
// fixed-width font so that the boxes and shapes line up.
void MainWindow::showSubMapsReport(const QString& report) {
  auto* dialog = new QDialog(this);
  dialog->setObjectName("subMapsReport");
  dialog->setWindowTitle(tr("Sub-maps run"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* text = new QPlainTextEdit(report, dialog);
  text->setObjectName("subMapsText");
  text->setReadOnly(true);
  text->setLineWrapMode(QPlainTextEdit::NoWrap);
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(text);
  layout->addWidget(buttons);
  const QFontMetrics metrics(text->font());
  int widest = 0;
  for (const QString& line : report.split('\n')) widest = std::max(widest, metrics.horizontalAdvance(line));
  dialog->resize(std::min(widest + 60, 1400), metrics.lineSpacing() * (int(report.count('\n')) + 4) + 60);
  dialog->show();
}

bool MainWindow::importMapping(const QString& path, QString* error) {
  try {
    if (const auto report = runSubMapsForWindow(path, requestedConfig())) {
      statusBar()->showMessage(report->section('\n', 0, 0));
      showSubMapsReport(*report);
      return true;
    }
    const ImportedScheduleView v = importMappingForWindow(path, requestedConfig());
    showConfig(v.config);  // the what-if form shows the mapping's settings, so the run is not stale
    if (!startSession(v.config)) {
      if (error) *error = tr("%1: the problem in the controls cannot be explored").arg(path);
      return false;
    }
    m_selection->set({v.draft});
    statusBar()->showMessage(v.summary);
    m_importNote = v.summary;
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool MainWindow::importSchedule(const QString& path, QString* error) {
  try {
    // A DSL kernel embedded in the schedule is written where the window keeps its own files.
    const QString kernels = QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
                                .filePath("imported-kernels");
    const ImportedScheduleView v = importScheduleForWindow(path, kernels);
    if (!startSession(v.config)) {
      if (error) *error = tr("%1: the schedule's problem cannot be explored").arg(path);
      return false;
    }
    m_selection->set({v.draft});  // started() cleared the selection; a non-empty one survives the run's end
    statusBar()->showMessage(v.summary);
    m_importNote = v.summary;  // and again when the run ends, before "Done in"
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

}  // namespace pimgui
