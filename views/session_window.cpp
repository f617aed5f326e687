// SPDX-License-Identifier: Apache-2.0
// The window's side of sessions: File > Open/Open Recent/Save/Save As, the title with its modified marker,
// the close prompt, and Edit > Undo/Redo of steering actions. Kept apart from main_window.cpp, which wires
// the views; session_document.cpp maps the window to and from the file's contents.
#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>
#include <exception>

#include "engine/target/registry.h"
#include "engine/workflow/session_file.h"
#include "views/control_panel.h"
#include "views/exploration_session.h"
#include "views/export_paths.h"
#include "views/main_window.h"
#include "views/session_document.h"
#include "views/undo_commands.h"
#include "views/what_if_panel.h"

namespace pimgui {

namespace {
constexpr int kMaxRecent = 8;
const QString kRecentKey = QStringLiteral("sessions/recent");
const QString kFilter = QStringLiteral("PIMScope sessions (*.pimsession);;All files (*)");
}  // namespace

void MainWindow::addSessionActions(QMenu* file) {
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openSessionInteractive);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  // Rebuilt on every opening, so files deleted meanwhile drop out (with a status message).
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addAction(tr("&Save session"), QKeySequence::Save, this, [this] { saveSessionInteractive(false); });
  file->addAction(tr("Save session &as…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                  [this] { saveSessionInteractive(true); });
  file->addSeparator();
}

void MainWindow::addUndoActions(QMenu* edit) {
  QAction* undo = m_undo->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_undo->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
}

void MainWindow::connectSessionSignals() {
  m_panelConfig = m_controls->config();
  connect(m_controls, &ControlPanel::configChanged, this, &MainWindow::recordControls);
  connect(m_whatIf, &WhatIfPanel::backendEdited, this, &MainWindow::recordWhatIf);
  connect(m_undo, &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
}

// --- Undo
// -------------------------------------------------------------------------------------------------------

void MainWindow::recordControls() {
  if (m_applyingState) return;
  SessionConfig now = m_controls->config();
  if (steeringChange(m_panelConfig, now).isEmpty()) return;
  SessionConfig before = std::exchange(m_panelConfig, now);
  m_undo->push(new ControlsCommand(std::move(before), std::move(now),
                                   [this](const SessionConfig& c) { applyControls(c); }));
}

void MainWindow::applyControls(const SessionConfig& c) {
  m_applyingState = true;
  m_controls->setConfig(c);
  m_panelConfig = m_controls->config();
  m_applyingState = false;
  updateVerdict();
}

void MainWindow::recordWhatIf(const std::shared_ptr<const pim::Backend>& b) {
  if (m_applyingState || !b) return;
  const pim::Backend before =
      m_whatIfBefore && m_whatIfBefore->name == b->name ? *m_whatIfBefore : m_whatIf->original();
  m_whatIfBefore = b;
  if (before.hash() == b->hash()) return;
  m_undo->push(new WhatIfCommand(before, *b, [this](const pim::Backend& s) { applyWhatIf(s); }));
}

void MainWindow::applyWhatIf(const pim::Backend& b) {
  m_applyingState = true;
  pim::Backend original = m_whatIf->original();
  if (original.name != b.name) {
    try {
      original = pim::builtinBackends().get(b.name);
    } catch (const std::exception&) {
      original = b;
    }
  }
  m_whatIf->setState(original, b);
  m_whatIfBefore = std::make_shared<const pim::Backend>(b);
  m_applyingState = false;
  // An edit re-explores, so its undo does too: the results follow the hardware on screen.
  SessionConfig c = m_controls->config();
  c.backend = b.name;
  c.backendOverride = m_whatIf->modified() ? std::make_shared<const pim::Backend>(b) : nullptr;
  startWhatIfRun(c);
}

// --- Files
// ------------------------------------------------------------------------------------------------------

bool MainWindow::saveSession(const QString& path, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = msg;
    statusBar()->showMessage(msg);
    return false;
  };
  if (m_session->running())
    return fail(tr("%1: wait for the exploration to finish (or cancel it)").arg(path));
  pim::SessionData d;
  d.settings = settingsOf(m_session->config());
  d.records = m_session->records();
  d.baselines = m_session->baselines();
  d.progress = m_session->progress();
  d.predictorErrorPct = m_session->predictorErrorPct();
  d.note = m_session->note().toStdString();
  d.view = captureView(*this);
  d.history = historyForFile();
  try {
    pim::SessionFile::save(path.toStdString(), d);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  m_sessionPath = path;
  m_resultsDirty = false;
  m_undo->setClean();
  addRecent(path);
  updateTitle();
  statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()));
  return true;
}

bool MainWindow::openSession(const QString& path, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = msg;
    statusBar()->showMessage(msg);
    return false;
  };
  pim::SessionData d;
  SessionConfig config;
  QString note;
  try {
    d = pim::SessionFile::load(path.toStdString());
    config = configOf(d.settings, path, &note);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  QString adoptError;
  const auto catchFailure =
      connect(m_session, &ExplorationSession::failed, this, [&](const QString& msg) { adoptError = msg; });
  m_applyingState = true;
  showConfig(config);
  m_runOrigin = tr("opened %1").arg(QFileInfo(path).fileName());
  // A file with a history holds the run it shows among it: the history comes back as saved (below, once
  // the file opened), and the shown run is not listed again. A file without one (format 4 and older) starts
  // the history with it.
  m_showingHistory = !d.history.empty();
  m_restoreSelection = storedSelection(d.view);
  m_restoreParetoView = storedParetoView(d.view);
  m_restoreMessage = tr("Opened %1").arg(QFileInfo(path).fileName());
  if (!note.isEmpty()) m_restoreMessage += QStringLiteral(" · ") + note;
  const bool ok = m_session->adopt(config, std::move(d.records), std::move(d.baselines), d.progress,
                                   d.predictorErrorPct, QString::fromStdString(d.note));
  disconnect(catchFailure);
  if (!ok) {
    m_applyingState = false;
    m_runOrigin.clear();
    m_restoreSelection.reset();
    m_restoreParetoView.reset();
    m_restoreMessage.clear();
    m_showingHistory = false;
    return fail(tr("%1: %2").arg(path, adoptError));
  }
  const QString lostRuns = restoreHistory(d.history, path);
  if (!lostRuns.isEmpty()) m_restoreMessage += QStringLiteral(" · ") + lostRuns;
  applyView(*this, d.view);
  m_panelConfig = m_controls->config();
  m_whatIfBefore = std::make_shared<const pim::Backend>(m_whatIf->current());  // a first edit undoes to this
  m_applyingState = false;
  m_sessionPath = path;
  m_resultsDirty = false;
  m_undo->clear();
  addRecent(path);
  updateTitle();
  return true;
}

void MainWindow::openSessionInteractive() {
  if (!confirmClose()) return;
  const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), QString(), kFilter);
  if (path.isEmpty()) return;
  QString error;
  if (!openSession(path, &error)) QMessageBox::warning(this, tr("Cannot open session"), error);
}

bool MainWindow::saveSessionInteractive(bool saveAs) {
  QString path = m_sessionPath;
  if (saveAs || path.isEmpty()) {
    const QString suggested =
        path.isEmpty() && m_session->problem()
            ? suggestedExportPath(exportBaseName(m_session->config(), QStringLiteral("session")) +
                                  QStringLiteral(".pimsession"))
            : path;
    path = QFileDialog::getSaveFileName(this, tr("Save session"), suggested, kFilter);
    if (path.isEmpty()) return false;
    rememberExportFolder(path);
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".pimsession");
  }
  QString error;
  if (saveSession(path, &error)) return true;
  QMessageBox::warning(this, tr("Cannot save session"), error);
  return false;
}

bool MainWindow::confirmClose() {
  if (!m_persist || !isWindowModified()) return true;
  const auto answer = QMessageBox::question(
      this, tr("Unsaved session"),
      tr("Save the changes to %1?")
          .arg(m_sessionPath.isEmpty() ? tr("this session") : QFileInfo(m_sessionPath).fileName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return saveSessionInteractive(false);
  return true;
}

void MainWindow::updateTitle() {
  // Only the undo stack and unsaved runs count as changes: view options are saved, but changing them is not
  // worth a prompt on close.
  QString title = (m_sessionPath.isEmpty() ? tr("Untitled") : QFileInfo(m_sessionPath).fileName()) +
                  QStringLiteral("[*] — PIMScope");
  if (m_session->problem())
    title += QStringLiteral(" — ") + QString::fromStdString(m_session->problem()->title());
  setWindowTitle(title);
  setWindowModified(m_resultsDirty || !m_undo->isClean());
}

// --- Recent files
// -----------------------------------------------------------------------------------------------

QStringList MainWindow::recentSessions() const {
  if (!m_persist) return {};
  return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecent(const QString& path) {
  if (!m_persist) return;  // tests and screenshots never touch the user's settings
  QStringList list = recentSessions();
  const QString abs = QFileInfo(path).absoluteFilePath();
  list.removeAll(abs);
  list.prepend(abs);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings().setValue(kRecentKey, list);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  if (!m_recentMenu) return;
  m_recentMenu->clear();
  QStringList list = recentSessions(), kept;
  for (const QString& p : list) {
    if (QFileInfo::exists(p)) kept << p;
  }
  if (kept.size() != list.size()) {
    QSettings().setValue(kRecentKey, kept);
    statusBar()->showMessage(tr("Removed %n missing session file(s) from the recent list", nullptr,
                                static_cast<int>(list.size() - kept.size())));
  }
  for (const QString& p : kept) {
    m_recentMenu
        ->addAction(QFileInfo(p).fileName(), this,
                    [this, p] {
                      if (!confirmClose()) return;
                      QString error;
                      if (!openSession(p, &error))
                        QMessageBox::warning(this, tr("Cannot open session"), error);
                    })
        ->setToolTip(p);
  }
  if (!kept.isEmpty()) m_recentMenu->addSeparator();
  QAction* clear = m_recentMenu->addAction(tr("&Clear"), this, [this] {
    QSettings().remove(kRecentKey);
    rebuildRecentMenu();
  });
  clear->setEnabled(!kept.isEmpty());
}

}  // namespace pimgui
