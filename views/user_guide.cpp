// SPDX-License-Identifier: Apache-2.0
#include "views/user_guide.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

// Q_INIT_RESOURCE works only at global scope; a static library's resource is dropped at link time unless
// something calls it.
static void initGuideResource() { Q_INIT_RESOURCE(user_guide); }

namespace pimgui {
namespace {

const QString kGuide = QStringLiteral("qrc:/guide/gui.md");

/// Finds `text` after the cursor, wrapping to the start once; says in `status` when it is nowhere.
void findNext(QTextBrowser* browser, QLabel* status, const QString& text) {
  if (text.isEmpty()) return status->clear();
  if (!browser->find(text)) {
    browser->moveCursor(QTextCursor::Start);
    if (!browser->find(text)) return status->setText(QObject::tr("not found"));
  }
  status->clear();
}

}  // namespace

QString userGuideMarkdown() {
  initGuideResource();
  QFile f(QStringLiteral(":/guide/gui.md"));
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QDialog* showUserGuide(QWidget* parent) {
  initGuideResource();
  auto* dialog = new QDialog(parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setObjectName(QStringLiteral("userGuide"));
  dialog->setWindowTitle(QObject::tr("PIMScope user guide"));
  auto* browser = new QTextBrowser;
  browser->setOpenExternalLinks(true);
  // As a Markdown resource so its picture (screenshots/compare.png) resolves beside it.
  browser->setSource(QUrl(kGuide), QTextDocument::MarkdownResource);
  auto* find = new QLineEdit;
  find->setPlaceholderText(QObject::tr("Find in the guide (Ctrl+F; Return: next)"));
  find->setClearButtonEnabled(true);
  auto* status = new QLabel;
  auto* focusFind = new QShortcut(QKeySequence::Find, dialog);
  QObject::connect(focusFind, &QShortcut::activated, find, [find] {
    find->setFocus();
    find->selectAll();
  });
  QObject::connect(find, &QLineEdit::returnPressed, dialog, [=] { findNext(browser, status, find->text()); });
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(find, 1);
  bottom->addWidget(status);
  bottom->addWidget(buttons);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(browser, 1);
  layout->addLayout(bottom);
  dialog->resize(900, 720);
  dialog->show();
  return dialog;
}

}  // namespace pimgui
