// SPDX-License-Identifier: Apache-2.0
// Help > Keyboard shortcuts: every menu action that has a shortcut, read from the menus themselves, so the
// list cannot drift from what the keys do.
#pragma once
#include <QString>
#include <QStringList>

class QMenuBar;
class QWidget;

namespace pimgui {

/// "Menu > Action<TAB>Shortcut" for every action with a shortcut, in menu order.
QStringList menuShortcuts(const QMenuBar* bar);
/// A dialog listing menuShortcuts(bar) as a two-column table.
void showShortcuts(QWidget* parent, const QMenuBar* bar);

}  // namespace pimgui
