// SPDX-License-Identifier: Apache-2.0
// Help > User guide (issue 17, item 9): the guide (docs/gui.md) is built into the window and opens with F1,
// its picture resolves, and the find field finds text and says when there is none. Before, Help had only
// Classroom and About.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTest>
#include <QTextBrowser>

#include "views/main_window.h"
#include "views/user_guide.h"

using namespace pimgui;

TEST(UserGuide, F1OpensTheGuideBuiltIntoTheWindowAndItsFindFieldFinds) {
  const QString md = userGuideMarkdown();
  ASSERT_TRUE(md.startsWith(QStringLiteral("# PIMScope GUI"))) << md.left(80).toStdString();
  MainWindow w(false);
  auto* action = w.findChild<QAction*>(QStringLiteral("userGuideAction"));
  ASSERT_NE(action, nullptr);
  EXPECT_EQ(action->shortcut(), QKeySequence(QKeySequence::HelpContents));
  action->trigger();
  auto* guide = w.findChild<QDialog*>(QStringLiteral("userGuide"));
  ASSERT_NE(guide, nullptr);
  auto* browser = guide->findChild<QTextBrowser*>();
  ASSERT_NE(browser, nullptr);
  // Rendered, not shown as Markdown source: headings lose their '#', and the sections are all there.
  const QString text = browser->toPlainText();
  for (const char* section : {"Verdicts before work", "Run history", "Compare backends", "Sessions"})
    EXPECT_NE(text.indexOf(QString::fromLatin1(section)), -1) << section;
  EXPECT_EQ(text.indexOf(QStringLiteral("## Run history")), -1);
  // The guide's screenshot is built in beside it.
  const QVariant image = browser->document()->resource(
      QTextDocument::ImageResource, QUrl(QStringLiteral("qrc:/guide/screenshots/compare.png")));
  EXPECT_TRUE(image.isValid());
  // Every picture the guide shows is built in beside it (views/user_guide.qrc follows docs/gui.md).
  const QRegularExpression picture(QStringLiteral("\\]\\((screenshots/[^)]+\\.png)\\)"));
  int pictures = 0;
  for (auto m = picture.globalMatch(md); m.hasNext(); ++pictures) {
    const QString file = m.next().captured(1);
    EXPECT_TRUE(QFile::exists(QStringLiteral(":/guide/") + file)) << file.toStdString();
  }
  EXPECT_GE(pictures, 8);

  auto* find = guide->findChild<QLineEdit*>();
  auto* status = guide->findChild<QLabel*>();
  ASSERT_NE(find, nullptr);
  ASSERT_NE(status, nullptr);
  find->setText(QStringLiteral("Overlay on Pareto plot"));
  QTest::keyClick(find, Qt::Key_Return);
  EXPECT_EQ(browser->textCursor().selectedText(), QStringLiteral("Overlay on Pareto plot"));
  EXPECT_TRUE(status->text().isEmpty());
  find->setText(QStringLiteral("no such words in the guide"));
  QTest::keyClick(find, Qt::Key_Return);
  EXPECT_EQ(status->text(), QStringLiteral("not found"));
}
