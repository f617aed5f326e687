// SPDX-License-Identifier: Apache-2.0
// How long a job has left, from its rate so far: what the CLI's progress lines and the window's progress bar
// both say, so they agree.
#pragma once
#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <utility>

namespace pim {

/// Seconds left from the rate over the last kWindowSeconds since `key` was first seen (a new stage or shape
/// restarts the measurement): nothing until a second has passed with work done, or once `done` reaches
/// `total`. A recent rate, not the average since the start: simulations start slow (cold caches, the first
/// drafts) and speed up, and the average said 43 min where 6 remained.
class TimeLeftMeter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kWindowSeconds = 10;
  std::optional<double> secondsLeft(const std::string& key, double done, double total) {
    return secondsLeft(key, done, total, Clock::now());
  }
  /// The same at time `now` (tests).
  std::optional<double> secondsLeft(const std::string& key, double done, double total, Clock::time_point now);

 private:
  std::string m_key;
  Clock::time_point m_start;
  std::deque<std::pair<Clock::time_point, double>>
      m_samples;  // (when, done), oldest first, within the window
};

/// "45 s", "3 min 5 s", "2 h 10 min"
std::string durationText(double seconds);

}  // namespace pim
