// SPDX-License-Identifier: Apache-2.0
// Between the window and a session file (engine/workflow/session_file.h): the problem settings both ways and
// the view state (dock layout, geometry, plot axes and zoom, heat-map metric, table filter and sort,
// selection, details tab, control-panel and what-if state) as the file's key/value bytes.
#pragma once
#include <QList>
#include <QString>
#include <array>
#include <map>
#include <optional>
#include <string>

#include "engine/workflow/session_file.h"
#include "views/session_config.h"

namespace pimgui {

class MainWindow;

using ViewState = std::map<std::string, std::string>;

pim::SessionSettings settingsOf(const SessionConfig& c);
/// Rebuilds the configuration a session was explored with: the what-if backend from its JSON, and a DSL
/// kernel from the stored source when its file is gone or changed (a copy in the cache directory; `note`
/// says so). Throws InputError naming `sessionPath`.
SessionConfig configOf(const pim::SessionSettings& s, const QString& sessionPath, QString* note = nullptr);

/// Everything the window shows besides the results (see above).
ViewState captureView(const MainWindow& w);
/// Applies what does not depend on the rows being in (all but selection and Pareto zoom).
void applyView(MainWindow& w, const ViewState& v);
/// The stored selection (first id current).
QList<quint64> storedSelection(const ViewState& v);
/// The stored Pareto zoom, when the user had zoomed or panned.
std::optional<std::array<double, 4>> storedParetoView(const ViewState& v);

}  // namespace pimgui
