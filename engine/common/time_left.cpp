// SPDX-License-Identifier: Apache-2.0
#include "engine/common/time_left.h"

#include <algorithm>
#include <cmath>

namespace pim {

std::optional<double> TimeLeftMeter::secondsLeft(const std::string& key, double done, double total,
                                                 Clock::time_point now) {
  if (key != m_key) {
    m_key = key;
    m_start = now;
    m_samples.assign(1, {now, done});
    return std::nullopt;
  }
  m_samples.emplace_back(now, done);
  // Keep one sample at or before the window's start, so the rate always spans the whole window.
  const auto windowStart =
      now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kWindowSeconds));
  while (m_samples.size() > 2 && m_samples[1].first <= windowStart) m_samples.pop_front();
  const auto& [from, fromDone] = m_samples.front();
  const double span = std::chrono::duration<double>(now - from).count();
  const double rate = (done - fromDone) / std::max(span, 1e-9);
  if (std::chrono::duration<double>(now - m_start).count() < 1 || rate <= 0 || done >= total)
    return std::nullopt;
  return (total - done) / rate;
}

std::string durationText(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

}  // namespace pim
