// SPDX-License-Identifier: Apache-2.0
// Help > User guide: docs/gui.md, built into the binary (views/CMakeLists.txt), shown in a window with a find
// field, so the guide a user reads is the one of the version they run, with or without the source tree.
#pragma once
#include <QString>

class QDialog;
class QWidget;

namespace pimgui {

/// The guide's Markdown text as built in.
QString userGuideMarkdown();
/// Opens the guide in a non-modal window (deleted on close) and returns it.
QDialog* showUserGuide(QWidget* parent);

}  // namespace pimgui
