// SPDX-License-Identifier: Apache-2.0
// Waiting on the main window in GUI tests.
#pragma once
#include "views/draft_analysis.h"
#include "views/main_window.h"

namespace pimgui::test {

/// The window is idle and its details pane has analysed a draft: a run and its follow-ups are over.
inline bool settled(const MainWindow& w) { return w.idle() && w.analysis()->latest() != nullptr; }

}  // namespace pimgui::test
