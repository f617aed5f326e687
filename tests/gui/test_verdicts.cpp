// SPDX-License-Identifier: Apache-2.0
// Scenarios of the explorer window at its edges (issue: honest verdicts, no silent input changes): a problem
// that cannot run is refused in a banner before any draft, with the engine's reason; a dimension the engine
// does not accept is kept as typed and refused inline; a run that cannot start leaves no stale results.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>

#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/session_document.h"
#include "views/verdict_banner.h"

using namespace pimgui;

namespace {

QPushButton* exploreButton(ControlPanel* panel) {
  for (QPushButton* b : panel->findChildren<QPushButton*>())
    if (b->text().startsWith(QStringLiteral("Explore"))) return b;
  return nullptr;
}

QComboBox* comboWith(ControlPanel* panel, const QString& item) {
  for (QComboBox* box : panel->findChildren<QComboBox*>())
    if (box->findText(item) >= 0) return box;
  return nullptr;
}

/// Replaces the field's text as a user would: select all, type.
void typeInto(QLineEdit* field, const QString& text) {
  field->setFocus();
  field->selectAll();
  QTest::keyClicks(field, text);
}

}  // namespace

// A crossbar backend runs one conv or FC layer; of any other kernel the banner says why, and what compiles
// whole networks.
TEST(WindowVerdicts, ACrossbarBackendRefusesAKernelThatIsNotOneLayer) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  QComboBox* backend = comboWith(panel, QStringLiteral("crossbar-pimcomp"));
  QComboBox* kernel = comboWith(panel, QStringLiteral("red"));
  ASSERT_TRUE(backend && kernel && exploreButton(panel));
  backend->setCurrentText(QStringLiteral("crossbar-pimcomp"));
  kernel->setCurrentIndex(kernel->findText(QStringLiteral("red")));
  const QString why = w.verdictBanner()->verdict();
  EXPECT_TRUE(why.startsWith(QStringLiteral("red cannot run on crossbar-pimcomp"))) << why.toStdString();
  EXPECT_TRUE(why.contains(QStringLiteral("is not a convolution or FC layer"))) << why.toStdString();
  EXPECT_TRUE(why.contains(QStringLiteral("pimscope-cli compile --backend crossbar-pimcomp")))
      << why.toStdString();
  EXPECT_FALSE(exploreButton(panel)->isEnabled());
  kernel->setCurrentIndex(kernel->findText(QStringLiteral("conv2d")));
  EXPECT_TRUE(w.verdictBanner()->verdict().isEmpty()) << w.verdictBanner()->verdict().toStdString();
  EXPECT_TRUE(exploreButton(panel)->isEnabled());
}

TEST(WindowVerdicts, AnUnsupportedPairIsRefusedInABannerBeforeAnyDraft) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  QComboBox* backend = comboWith(panel, QStringLiteral("hbm-pim"));
  QComboBox* kernel = comboWith(panel, QStringLiteral("attn"));
  ASSERT_TRUE(backend && kernel && exploreButton(panel));
  backend->setCurrentText(QStringLiteral("hbm-pim"));
  kernel->setCurrentIndex(kernel->findText(QStringLiteral("attn")));
  EXPECT_TRUE(w.verdictBanner()->isVisibleTo(&w));
  EXPECT_TRUE(w.verdictBanner()->verdict().startsWith(QStringLiteral("attn cannot run on hbm-pim")))
      << w.verdictBanner()->verdict().toStdString();
  EXPECT_FALSE(exploreButton(panel)->isEnabled());
  EXPECT_EQ(w.model()->rowCount(), 0);

  // Back to a pair that runs: the banner goes, Explore comes back.
  kernel->setCurrentIndex(kernel->findText(QStringLiteral("gemv")));
  EXPECT_FALSE(w.verdictBanner()->isVisibleTo(&w));
  EXPECT_TRUE(exploreButton(panel)->isEnabled());
}

TEST(WindowVerdicts, ATypedZeroIsKeptAndRefusedInlineNotReplaced) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  QLineEdit* out = panel->dimensionField(QStringLiteral("out"));
  ASSERT_NE(out, nullptr);
  typeInto(out, QStringLiteral("0"));
  EXPECT_EQ(out->text(), QStringLiteral("0"));
  EXPECT_NE(panel->config().shape.find("out=0"), std::string::npos) << panel->config().shape;
  EXPECT_EQ(panel->inputError(), QStringLiteral("dimension 'out': 0 is not a valid size (must be 1..2^40)"));
  EXPECT_EQ(w.verdictBanner()->verdict(), panel->inputError());
  EXPECT_FALSE(exploreButton(panel)->isEnabled());
}

TEST(WindowVerdicts, AHugeDimensionIsNeverClampedAndTooLargeProblemsSayWhy) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  QLineEdit* out = panel->dimensionField(QStringLiteral("out"));
  ASSERT_NE(out, nullptr);
  typeInto(out, QStringLiteral("1099511627777"));  // 2^40 + 1: beyond what the CLI accepts
  EXPECT_EQ(out->text(), QStringLiteral("1099511627777"));
  EXPECT_NE(panel->inputError().indexOf(QStringLiteral("1099511627777 is not a valid size")), -1)
      << panel->inputError().toStdString();

  typeInto(out, QStringLiteral("1,099,511,627,776"));  // 2^40, with group separators: a valid size
  EXPECT_TRUE(panel->inputError().isEmpty()) << panel->inputError().toStdString();
  EXPECT_NE(panel->config().shape.find("out=1099511627776"), std::string::npos) << panel->config().shape;
  // ... of a GEMV that cannot fit hbm-pim's banks: the engine's numbers, before any work.
  EXPECT_NE(w.verdictBanner()->verdict().indexOf(QStringLiteral("the PIM regions of hbm-pim's banks hold")),
            -1)
      << w.verdictBanner()->verdict().toStdString();
  EXPECT_FALSE(exploreButton(panel)->isEnabled());
}

TEST(WindowVerdicts, ARunThatCannotStartLeavesNoStaleResults) {
  MainWindow w(false);
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running() && w.idle(); }, 60000));
  ASSERT_GT(w.model()->rowCount(), 0);

  SessionConfig upmem = test::smallConfig();
  upmem.backend = "upmem";
  EXPECT_FALSE(w.startSession(upmem));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 10000));
  EXPECT_EQ(w.model()->rowCount(), 0);
  EXPECT_TRUE(w.verdictBanner()->verdict().startsWith(QStringLiteral("red cannot run on upmem")))
      << w.verdictBanner()->verdict().toStdString();
}

// A session's view state is JSON the window reads back, through the same depth-limited parser as every other
// reader (engine/common/json_input.h): 10^6 nested arrays are refused after 256 levels instead of being
// built, and the view falls back as for any damaged entry; a good entry still restores.
TEST(WindowSessions, DeeplyNestedViewStateFallsBackLikeAnyDamagedEntry) {
  ViewState v;
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  v["pareto.view"] = deep;
  v["controls"] = deep;
  EXPECT_FALSE(storedParetoView(v).has_value());
  MainWindow w(false);
  const SessionConfig before = w.controls()->config();
  applyView(w, v);
  EXPECT_EQ(w.controls()->config().shape, before.shape);
  v["pareto.view"] = "[0.1, 2.0, 100.0, 200.0]";
  ASSERT_TRUE(storedParetoView(v).has_value());
  EXPECT_EQ((*storedParetoView(v))[2], 100.0);
}
