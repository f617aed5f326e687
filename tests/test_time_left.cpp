// SPDX-License-Identifier: Apache-2.0
// The time left that the CLI's progress lines and the window's progress bar show: from the recent rate, so a
// job that starts slow and speeds up (simulations with cold caches) is not told it has hours left.
#include <gtest/gtest.h>

#include "engine/common/time_left.h"

namespace {

using pim::TimeLeftMeter;
using Clock = TimeLeftMeter::Clock;

Clock::time_point at(double seconds) {
  return Clock::time_point{} +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

TEST(TimeLeft, FollowsTheRecentRateNotTheAverageSinceTheStart) {
  TimeLeftMeter m;
  EXPECT_FALSE(m.secondsLeft("simulating", 0, 3000, at(0)));    // first sight: no rate yet
  EXPECT_FALSE(m.secondsLeft("simulating", 5, 3000, at(0.5)));  // under a second
  // 10 s at 10 per second, then 10 s at 100 per second: 1,100 done, 1,900 left at 100 per second.
  for (int t = 1; t <= 10; ++t) m.secondsLeft("simulating", 10.0 * t, 3000, at(t));
  std::optional<double> left;
  for (int t = 11; t <= 20; ++t) left = m.secondsLeft("simulating", 100 + 100.0 * (t - 10), 3000, at(t));
  ASSERT_TRUE(left);
  EXPECT_DOUBLE_EQ(*left, 19.0);  // the average since the start (55 per second) would say 34.5 s
}

TEST(TimeLeft, ANewKeyRestartsAndTheEndSaysNothing) {
  TimeLeftMeter m;
  m.secondsLeft("generating", 0, 10, at(0));
  EXPECT_DOUBLE_EQ(*m.secondsLeft("generating", 5, 10, at(2)), 2.0);
  EXPECT_FALSE(m.secondsLeft("simulating", 0, 100, at(3)));  // a new stage measures afresh
  EXPECT_DOUBLE_EQ(*m.secondsLeft("simulating", 20, 100, at(5)), 8.0);
  EXPECT_FALSE(m.secondsLeft("simulating", 100, 100, at(7)));  // done
}

}  // namespace
