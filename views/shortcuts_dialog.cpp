// SPDX-License-Identifier: Apache-2.0
#include "views/shortcuts_dialog.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pimgui {
namespace {

void collect(const QMenu* menu, const QString& path, QStringList& out) {
  for (const QAction* a : menu->actions()) {
    const QString name = path + QStringLiteral(" > ") + a->text().remove(QLatin1Char('&'));
    if (a->menu()) {
      collect(a->menu(), name, out);
    } else if (!a->shortcut().isEmpty()) {
      out << name + QLatin1Char('\t') + a->shortcut().toString(QKeySequence::NativeText);
    }
  }
}

}  // namespace

QStringList menuShortcuts(const QMenuBar* bar) {
  QStringList out;
  for (const QAction* a : bar->actions())
    if (a->menu()) collect(a->menu(), a->text().remove(QLatin1Char('&')), out);
  return out;
}

void showShortcuts(QWidget* parent, const QMenuBar* bar) {
  auto* dialog = new QDialog(parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(QObject::tr("Keyboard shortcuts"));
  const QStringList rows = menuShortcuts(bar);
  auto* table = new QTableWidget(static_cast<int>(rows.size()), 2);
  table->setHorizontalHeaderLabels({QObject::tr("Action"), QObject::tr("Shortcut")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int r = 0; r < rows.size(); ++r) {
    const QStringList cells = rows[r].split(QLatin1Char('\t'));
    for (int c = 0; c < 2; ++c) table->setItem(r, c, new QTableWidgetItem(cells.value(c)));
  }
  table->resizeColumnsToContents();
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(table);
  layout->addWidget(buttons);
  dialog->resize(560, 520);
  dialog->show();
}

}  // namespace pimgui
