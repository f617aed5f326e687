// SPDX-License-Identifier: Apache-2.0
// The control panel's "Model" box: the DCC-artifact mode (docs/dcc_artifact_mode.md) chosen in the window
// reaches the run's evaluation options, and a run labels drafts with it.
#include <gtest/gtest.h>

#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/main_window.h"

using namespace pimgui;

namespace {

TEST(LabelModelControl, ModelBoxReachesTheRunsEvaluationOptions) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  SessionConfig c = test::smallConfig();
  panel->setConfig(c);
  EXPECT_EQ(panel->config().model, pim::LabelModel::PimScope);
  c.model = pim::LabelModel::DccInference;
  panel->setConfig(c);
  EXPECT_EQ(panel->config().model, pim::LabelModel::DccInference);
  EXPECT_EQ(panel->config().evalOptions().model, pim::LabelModel::DccInference);
  c.model = pim::LabelModel::PimScope;
  panel->setConfig(c);
  EXPECT_EQ(panel->config().evalOptions().model, pim::LabelModel::PimScope);
}

}  // namespace
