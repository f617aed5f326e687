// SPDX-License-Identifier: Apache-2.0
#include "engine/schedule/parts_text.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include "engine/common/error.h"

namespace pim {
namespace {

/// A recursive-descent reader over the text, every error naming the 1-based character position.
class PartsReader {
 public:
  explicit PartsReader(std::string_view text) : m_text(text) {}

  std::vector<PartTriple> read() {
    if (m_text.substr(0, 6) == "parts:") m_pos = 6;
    std::vector<PartTriple> out;
    expect('[', "'[' opening the list of parts");
    if (peek() == ']') fail("at least one part [groups, cores, third]");
    for (;;) {
      out.push_back(triple(static_cast<int>(out.size())));
      if (peek() == ',') {
        ++m_pos;
        continue;
      }
      expect(']', "',' or ']' after part " + std::to_string(out.size() - 1));
      break;
    }
    skipSpace();
    if (m_pos != m_text.size()) fail("the end of the parts list");
    return out;
  }

 private:
  PartTriple triple(int part) {
    const std::string what = "part " + std::to_string(part);
    expect('[', "'[' opening " + what);
    PartTriple t{};
    for (int i = 0; i < 3; ++i) {
      if (i > 0) expect(',', "',' and 3 numbers in " + what + " (groups, cores, third)");
      t[i] = number(what);
    }
    expect(']', "']' closing " + what + " after 3 numbers");
    return t;
  }
  std::int64_t number(const std::string& what) {
    skipSpace();
    const std::size_t start = m_pos;
    std::int64_t v = 0;
    while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      const int d = m_text[m_pos] - '0';
      if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10) fail("a number of " + what + " that fits");
      v = v * 10 + d;
      ++m_pos;
    }
    if (m_pos == start) fail("a non-negative integer in " + what);
    return v;
  }
  char peek() {
    skipSpace();
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
  }
  void expect(char c, const std::string& what) {
    if (peek() != c) fail(what);
    ++m_pos;
  }
  void skipSpace() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    const std::string found = m_pos < m_text.size() ? "'" + std::string(1, m_text[m_pos]) + "'" : "the end";
    throw InputError("parts: character " + std::to_string(m_pos + 1) + ": expected " + expected + ", found " +
                     found + " (form: parts:[[groups,cores,n],...])");
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
};

}  // namespace

std::vector<PartTriple> parsePartsText(std::string_view text) { return PartsReader(text).read(); }

Draft draftFromParts(const DraftSpace& space, std::span<const PartTriple> parts) {
  if (static_cast<int>(parts.size()) != space.partCount()) {
    throw InputError("parts: this kernel's drafts have " + std::to_string(space.partCount()) +
                     " parts (one per dimension set), got " + std::to_string(parts.size()));
  }
  std::vector<PartChoice> choices;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const PartTriple& t = parts[i];
    const auto reps = static_cast<std::int64_t>(space.sets().sets[i].candidates.size());
    if (t[0] < 1 || t[1] < 1) {
      throw InputError("parts: part " + std::to_string(i) + ": groups and cores must be at least 1, got [" +
                       std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) +
                       "]");
    }
    if (t[2] >= reps) {
      throw InputError("parts: part " + std::to_string(i) + ": representative " + std::to_string(t[2]) +
                       " is out of range: this dimension set has " + std::to_string(reps) + " (0.." +
                       std::to_string(reps - 1) + ")");
    }
    constexpr std::int64_t kMax = std::numeric_limits<int>::max();
    choices.push_back({static_cast<int>(std::min(t[0], kMax)), static_cast<int>(std::min(t[1], kMax)),
                       static_cast<int>(t[2])});
  }
  Draft d;
  d.id = space.idOf(choices);  // names the allocation that exceeds the resources
  d.parts = std::move(choices);
  return d;
}

}  // namespace pim
