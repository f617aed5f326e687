// SPDX-License-Identifier: Apache-2.0
// Where export dialogs open and what they suggest: a file name that says what it holds (kernel, shape,
// backend, what) in the folder of the last export, so a series of exports lands together and a saved file
// stands alone. The window keeps the folder between runs (QSettings "export/folder") when it persists its
// layout; tests and screenshots keep it for the process only.
#pragma once
#include <QString>

#include "views/session_config.h"

namespace pimgui {

/// "gemv_b1_out4096_in4096_hbm-pim_drafts": `what` after the problem, every character a file system might
/// refuse replaced; a what-if backend adds "_whatif".
QString exportBaseName(const SessionConfig& c, const QString& what);

/// The folder of the last export ("" before the first).
QString lastExportFolder();
/// Remembers the folder of `filePath` for the next dialog (and in QSettings once restoreExportFolder ran).
void rememberExportFolder(const QString& filePath);
/// Loads the folder QSettings kept and keeps later ones there (the window calls it when it persists its
/// layout).
void restoreExportFolder();
/// `fileName` in the last export folder, else in the user's documents folder (else home).
QString suggestedExportPath(const QString& fileName);

}  // namespace pimgui
