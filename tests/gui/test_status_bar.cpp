// SPDX-License-Identifier: Apache-2.0
// The status bar at 1280 pixels: the message, the progress bar and the counts share the width without
// overlapping or running past the window, and a text cut short ends in "…" with the whole text as tooltip.
#include <gtest/gtest.h>

#include <QProgressBar>
#include <QStatusBar>
#include <QTest>

#include "gui_test_util.h"
#include "views/elided_label.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/run_progress.h"

namespace pimgui {
namespace {

// At 1280 pixels the message ran into the counts ("… measured on 128 condone · generated …") and the counts
// made the status bar, and the window, wider than the screen.
TEST(StatusBar, NothingOverlapsOrLeavesTheWindowAt1280Pixels) {
  MainWindow w(false);
  w.resize(1280, 800);
  w.show();
  SessionConfig c = test::smallConfig();
  c.strategy = "predictor";  // a model: the counts and the final message carry the prediction figures
  c.maxSimulations = 0;
  ASSERT_TRUE(w.startSession(c));
  // While it runs: the message, the bar and the counts side by side.
  ASSERT_TRUE(test::waitFor([&] { return w.runProgress()->isVisible(); }, 20000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  w.statusBar()->showMessage(w.statusBar()->currentMessage() + QStringLiteral(" · ") +
                             w.countsText());  // longer than any real message: it must still fit
  QTest::qWait(50);
  EXPECT_LE(w.minimumSizeHint().width(), 1280);
  EXPECT_EQ(w.width(), 1280);
  QStatusBar* bar = w.statusBar();
  EXPECT_LE(bar->geometry().right(), w.rect().right());
  std::vector<QRect> shown;
  for (QWidget* child : bar->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
    if (!child->isVisible()) continue;
    const QRect g = child->geometry();
    EXPECT_GE(g.left(), 0);
    EXPECT_LE(g.right(), bar->rect().right()) << child->metaObject()->className();
    for (const QRect& other : shown) EXPECT_FALSE(g.intersects(other)) << child->metaObject()->className();
    shown.push_back(g);
  }
  EXPECT_GE(shown.size(), 2u);  // the message and the counts at least
  auto* message = bar->findChild<ElidedLabel*>();
  ASSERT_NE(message, nullptr);
  EXPECT_EQ(message->text(), bar->currentMessage());
  EXPECT_EQ(message->toolTip(), bar->currentMessage());
  EXPECT_GT(message->fontMetrics().horizontalAdvance(message->text()), message->contentsRect().width())
      << "this message is longer than its share: it is cut short with an ellipsis";
}

}  // namespace
}  // namespace pimgui
