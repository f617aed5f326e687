// SPDX-License-Identifier: Apache-2.0
// How long a job has left, from its rate so far: what the CLI's progress lines and the window's progress bar
// both say, so they agree.
#pragma once
#include <chrono>
#include <optional>
#include <string>

namespace pim {

/// Seconds left from the rate since `key` was first seen (a new stage or shape restarts the measurement):
/// nothing until a second has passed with work done, or once `done` reaches `total`.
class TimeLeftMeter {
 public:
  std::optional<double> secondsLeft(const std::string& key, double done, double total);

 private:
  std::string m_key;
  double m_startDone = 0;
  std::chrono::steady_clock::time_point m_start;
};

/// "45 s", "3 min 5 s", "2 h 10 min"
std::string durationText(double seconds);

}  // namespace pim
