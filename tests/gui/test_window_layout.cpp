// SPDX-License-Identifier: Apache-2.0
// The window's first size fits the screen (its status bar was off-screen on a 1600x1000 display), and View >
// Reset layout brings back docks that were closed or floated.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>

#include "views/main_window.h"

using namespace pimgui;

TEST(WindowLayout, FirstStartFitsTheScreen) {
  MainWindow w(false);
  const QRect area = QGuiApplication::primaryScreen()->availableGeometry();
  EXPECT_LE(w.width(), area.width());
  EXPECT_LE(w.height(), area.height());
  EXPECT_TRUE(area.contains(w.geometry())) << w.geometry().x() << "," << w.geometry().y();
}

TEST(WindowLayout, ResetLayoutBringsBackClosedAndFloatingDocks) {
  MainWindow w(false);
  w.show();
  const QList<QDockWidget*> docks = w.findChildren<QDockWidget*>();
  ASSERT_GE(docks.size(), 6);
  docks[0]->close();
  docks[1]->setFloating(true);
  w.resetLayout();
  for (QDockWidget* d : docks) {
    EXPECT_FALSE(d->isFloating()) << d->objectName().toStdString();
    EXPECT_FALSE(d->isHidden()) << d->objectName().toStdString();
  }
}
