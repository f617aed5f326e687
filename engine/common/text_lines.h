// SPDX-License-Identifier: Apache-2.0
// Text cut to its first lines (the details pane's listings are bounded by a line count).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace pim {

/// The first `maxLines` lines of `text`, each with its newline.
inline std::string firstLines(std::string_view text, std::size_t maxLines) {
  std::size_t at = 0;
  for (std::size_t lines = 0; at < text.size() && lines < maxLines; ++lines) {
    const auto end = text.find('\n', at);
    at = end == std::string_view::npos ? text.size() : end + 1;
  }
  return std::string(text.substr(0, at));
}

}  // namespace pim
