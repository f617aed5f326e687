// SPDX-License-Identifier: Apache-2.0
// The control panel's "Resident tensors" field: filled with the kernel's declared residency, what it lists is
// what the run's problem keeps resident, an unknown name stops the run with the engine's message, a change
// marks the shown results stale, the details show the one-time preload, and a saved session keeps the list.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/stale_banner.h"
#include "views/verdict_banner.h"
#include "window_test_util.h"

using namespace pimgui;

namespace {

SessionConfig smallGemv() {
  SessionConfig c = test::smallConfig();
  c.kernel = "gemv";
  c.shape = "b=1,out=256,in=256";
  c.maxSimulations = 20;
  return c;
}

using pimgui::test::settled;

QString detailsText(const MainWindow& w) {
  QString all;
  for (const QLabel* l : w.details()->findChildren<QLabel*>()) all += l->text() + QLatin1Char('\n');
  return all;
}

}  // namespace

TEST(ResidencyControl, FieldSetsTheResidencyOfTheRun) {
  MainWindow w(false);
  w.show();
  ControlPanel* panel = w.controls();
  QLineEdit* field = panel->residentField();
  ASSERT_TRUE(field);
  ASSERT_TRUE(w.startSession(smallGemv()));
  EXPECT_EQ(field->text(), QStringLiteral("W"));  // gemv declares its matrix resident
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 60000));
  const auto& declared = w.session()->problem();
  const int W = declared->kernel().tensorIndex("W"), x = declared->kernel().tensorIndex("x");
  EXPECT_TRUE(declared->isResident(W));
  EXPECT_FALSE(declared->isResident(x));
  // The details re-simulate the selected draft with its one-time preload.
  const auto analysis = w.analysis()->latest();
  ASSERT_TRUE(analysis->evaluation);
  ASSERT_TRUE(analysis->evaluation->preloadCycles);
  EXPECT_GT(*analysis->evaluation->preloadCycles, 0);
  EXPECT_TRUE(detailsText(w).contains(QStringLiteral("Preload (once)"))) << detailsText(w).toStdString();

  // Typed as a user would: x resident too, W streamed. The shown results go stale until explored again.
  field->clear();
  QTest::keyClicks(field, QStringLiteral("x"));
  EXPECT_EQ(panel->config().resident, std::optional<std::string>("x"));
  EXPECT_EQ(w.staleBanner()->reason(), QStringLiteral("resident tensors"));
  EXPECT_EQ(w.undoStack()->undoText(), QStringLiteral("change resident tensors"));
  ASSERT_TRUE(w.startSession(panel->config()));
  EXPECT_FALSE(w.session()->problem()->isResident(W));
  EXPECT_TRUE(w.session()->problem()->isResident(x));
  EXPECT_TRUE(w.staleBanner()->reason().isEmpty());
  w.session()->stopAndWait();

  // Empty: every tensor streamed, and no preload to show.
  field->clear();
  ASSERT_TRUE(w.startSession(panel->config()));
  EXPECT_FALSE(w.session()->problem()->residency().any());
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 60000));
  EXPECT_FALSE(w.analysis()->latest()->evaluation->preloadCycles);
  EXPECT_FALSE(detailsText(w).contains(QStringLiteral("Preload")));
}

TEST(ResidencyControl, UnknownTensorIsRefusedWithTheEngineMessage) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  panel->setConfig(smallGemv());
  panel->residentField()->setText(QStringLiteral("W,Q"));
  const QString expected =
      QStringLiteral("resident tensors: kernel gemv has no tensor 'Q' (tensors: W, x, y)");
  EXPECT_EQ(panel->inputError(), expected);
  EXPECT_TRUE(w.verdictBanner()->text().contains(expected.toHtmlEscaped()))
      << w.verdictBanner()->text().toStdString();
  // Never silently changed: the field keeps what was typed, and a run of it is refused with the message.
  EXPECT_EQ(panel->residentField()->text(), QStringLiteral("W,Q"));
  SessionConfig c = panel->config();
  try {
    makeProblem(c);
    ADD_FAILURE() << "W,Q was accepted";
  } catch (const std::exception& e) {
    EXPECT_EQ(QString::fromStdString(e.what()), expected);
  }
  // A kernel change fills in that kernel's declared residency.
  QComboBox* kernel = nullptr;
  for (QComboBox* box : panel->findChildren<QComboBox*>())
    if (box->findText(QStringLiteral("red")) >= 0) kernel = box;
  ASSERT_TRUE(kernel);
  kernel->setCurrentIndex(kernel->findText(QStringLiteral("red")));
  EXPECT_EQ(panel->residentField()->text(), QString());
  EXPECT_TRUE(panel->inputError().isEmpty());
}

TEST(ResidencyControl, SavedSessionKeepsTheResidency) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("gemv.pimsession"));
  MainWindow w(false);
  SessionConfig c = smallGemv();
  c.resident = "";
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 60000));
  QString error;
  ASSERT_TRUE(w.saveSession(path, &error)) << error.toStdString();

  MainWindow v(false);
  ASSERT_TRUE(v.openSession(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return settled(v); }, 60000));
  EXPECT_EQ(v.session()->config().resident, std::optional<std::string>(""));
  EXPECT_FALSE(v.session()->problem()->residency().any());
  EXPECT_EQ(v.controls()->residentField()->text(), QString());
  EXPECT_TRUE(v.staleBanner()->reason().isEmpty());
}
