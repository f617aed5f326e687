// SPDX-License-Identifier: Apache-2.0
#include "engine/common/time_left.h"

#include <algorithm>
#include <cmath>

namespace pim {

std::optional<double> TimeLeftMeter::secondsLeft(const std::string& key, double done, double total) {
  const auto now = std::chrono::steady_clock::now();
  if (key != m_key) {
    m_key = key;
    m_start = now;
    m_startDone = done;
    return std::nullopt;
  }
  const double elapsed = std::chrono::duration<double>(now - m_start).count();
  const double rate = (done - m_startDone) / std::max(elapsed, 1e-9);
  if (elapsed < 1 || rate <= 0 || done >= total) return std::nullopt;
  return (total - done) / rate;
}

std::string durationText(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

}  // namespace pim
