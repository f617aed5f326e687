// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/mapping_spec.h"

#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_input.h"

namespace pim {

std::string MappingPlace::str() const {
  if (line > 0) return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  return path.empty() ? file : file + ": " + path;
}

namespace {

// Every tuple of a map has one entry per dimension.
void requireEqualLengths(const MappingMap& m) {
  for (const MappingTuple& t : m.tuples)
    if (t.entries.size() != m.tuples.front().entries.size())
      throw InputError(t.at.str() + ": " + m.name + "'s tuples must all have as many entries as its first (" +
                       std::to_string(m.tuples.front().entries.size()) + "), this one has " +
                       std::to_string(t.entries.size()));
}

// "M3" -> 3, 0 when the name is not M followed by a positive number.
int mapIndex(std::string_view name) {
  if (name.size() < 2 || name[0] != 'M' || name.size() > 10) return 0;
  long long v = 0;
  for (char c : name.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    v = v * 10 + (c - '0');
  }
  return v > 0 && v <= std::numeric_limits<int>::max() ? static_cast<int>(v) : 0;
}

/// CoMoNM's notation, read by recursive descent; positions are 1-based lines and columns.
class MappingTextReader {
 public:
  MappingTextReader(std::string_view text, const std::string& file) : m_text(text) { m_spec.file = file; }

  MappingSpec read() {
    skipBlank();
    const MappingPlace at = place();
    std::string head = identifier("a name ending in _map, e.g. Upmem_map");
    if (head.size() <= 4 || head.substr(head.size() - 4) != "_map")
      fail(at, "a name ending in _map (Upmem_map, Hbmpim_map)", head);
    m_spec.target = head.substr(0, head.size() - 4);
    expect(':', "':' after " + head);
    expect('[', "'[' opening the list of maps");
    for (;;) {
      m_spec.maps.push_back(map());
      skipBlank();
      if (peek() == ',') {
        ++m_pos;
        skipBlank();
        if (peek() == ']') break;  // a trailing comma, as in CoMoNM's Fig. 8c
        continue;
      }
      break;
    }
    expect(']', "',' or ']' after map " + m_spec.maps.back().name);
    skipBlank();
    if (m_pos != m_text.size()) fail(place(), "the end of the file after ']'", rest());
    return std::move(m_spec);
  }

 private:
  MappingMap map() {
    skipBlank();
    MappingMap m;
    m.at = place();
    m.name = identifier("a map name such as M1");
    m.index = mapIndex(m.name);
    if (m.index == 0) fail(m.at, "a map name M<n> with n >= 1 (its execution order)", m.name);
    expect(':', "':' after " + m.name);
    expect('{', "'{' opening " + m.name + "'s tuples");
    do m.tuples.push_back(tuple(m.name, static_cast<int>(m.tuples.size()) + 1));
    while (accept(','));
    expect('}', "',' or '}' after tuple " + std::to_string(m.tuples.size()) + " of " + m.name);
    requireEqualLengths(m);
    return m;
  }

  MappingTuple tuple(const std::string& map, int n) {
    skipBlank();
    MappingTuple t;
    t.at = place();
    const std::string what = "tuple " + std::to_string(n) + " of " + map;
    expect('(', "'(' opening " + what);
    do t.entries.push_back(entry(what));
    while (accept(','));
    expect(')', "',' or ')' in " + what);
    return t;
  }

  std::int64_t entry(const std::string& what) {
    skipBlank();
    const MappingPlace at = place();
    std::int64_t v = 0;
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      const int d = m_text[m_pos] - '0';
      if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10)
        fail(at, "an entry of " + what + " below 2^63", std::string(m_text.substr(start, m_pos - start + 1)));
      v = v * 10 + d;
      ++m_pos;
    }
    if (m_pos == start) fail(at, "a whole number in " + what, rest());
    if (v == 0) fail(at, "an entry >= 1 in " + what + " (a division factor or a leaf's extent)", "0");
    return v;
  }

  std::string identifier(const std::string& expected) {
    skipBlank();
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() &&
           (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
      ++m_pos;
    if (m_pos == start) fail(place(), expected, rest());
    return std::string(m_text.substr(start, m_pos - start));
  }

  bool accept(char c) {
    skipBlank();
    if (peek() != c) return false;
    ++m_pos;
    return true;
  }
  void expect(char c, const std::string& expected) {
    if (!accept(c)) fail(place(), expected, rest());
  }
  char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }

  void skipBlank() {
    while (m_pos < m_text.size()) {
      if (m_text[m_pos] == '#') {
        while (m_pos < m_text.size() && m_text[m_pos] != '\n') ++m_pos;
      } else if (std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
        ++m_pos;
      } else {
        break;
      }
    }
  }

  // The reader only moves forward: line and column advance from the last place asked for.
  MappingPlace place() {
    for (; m_counted < m_pos; ++m_counted) {
      if (m_text[m_counted] == '\n')
        ++m_line, m_column = 1;
      else
        ++m_column;
    }
    MappingPlace p;
    p.file = m_spec.file;
    p.line = m_line;
    p.column = m_column;
    return p;
  }
  // Up to 12 printable characters from the current position, for "found ...".
  std::string rest() const {
    if (m_pos >= m_text.size()) return "the end of the file";
    std::string s;
    for (std::size_t i = m_pos; i < m_text.size() && s.size() < 12 && m_text[i] != '\n'; ++i)
      s += std::isprint(static_cast<unsigned char>(m_text[i])) ? m_text[i] : '?';
    return "'" + s + "'";
  }
  [[noreturn]] static void fail(const MappingPlace& at, const std::string& expected,
                                const std::string& found) {
    throw InputError(
        at.str() + ": expected " + expected + ", found " +
        (found.empty() || found[0] == '\'' || found == "the end of the file" ? found : "'" + found + "'"));
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::size_t m_counted = 0;  // place(): characters counted into m_line and m_column
  int m_line = 1, m_column = 1;
  MappingSpec m_spec;
};

MappingPlace jsonPlace(const std::string& file, const std::string& path) {
  MappingPlace p;
  p.file = file;
  p.path = path;
  return p;
}

std::int64_t jsonEntry(const nlohmann::json& v, const MappingPlace& at) {
  if (!v.is_number_integer() || (v.is_number_integer() && v.get<std::int64_t>() < 1))
    throw InputError(at.str() + ": expected a whole number >= 1, found " + v.dump());
  return v.get<std::int64_t>();
}

std::vector<MappingChoice> jsonChoices(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object())
    throw InputError(file +
                     ": choices: expected an object of kernel-level choices, such as "
                     "{\"operand_caching\": \"kept in WRAM\"}");
  std::vector<MappingChoice> out;
  for (const auto& [key, value] : j.items()) {
    MappingChoice c;
    c.key = key;
    c.at = jsonPlace(file, "choices." + key);
    if (value.is_string()) {
      c.text = value.get<std::string>();
    } else if (value.is_number_integer()) {
      c.value = value.get<std::int64_t>();
    } else {
      throw InputError(c.at.str() +
                       ": expected a choice as its label says it (a string) or a whole number, "
                       "found " +
                       value.dump());
    }
    out.push_back(std::move(c));
  }
  return out;
}

MappingMap jsonMap(const nlohmann::json& j, const std::string& file, const std::string& path, int n) {
  if (!j.is_object()) throw InputError(file + ": " + path + ": expected an object with \"levels\"");
  for (const auto& [key, value] : j.items())
    if (key != "name" && key != "levels")
      throw InputError(file + ": " + path + "." + key + ": unknown key (a map has \"name\" and \"levels\")");
  MappingMap m;
  m.at = jsonPlace(file, path);
  m.name = "M" + std::to_string(n);
  if (j.contains("name")) {
    if (!j["name"].is_string())
      throw InputError(file + ": " + path + ".name: expected a string such as \"M1\"");
    m.name = j["name"].get<std::string>();
  }
  m.index = mapIndex(m.name);
  if (m.index == 0)
    throw InputError(file + ": " + path + ".name: expected M<n> with n >= 1 (its execution order), found \"" +
                     m.name + "\"");
  const std::string levelsPath = path + ".levels";
  if (!j.contains("levels") || !j["levels"].is_array() || j["levels"].empty())
    throw InputError(file + ": " + levelsPath + ": expected a non-empty array of tuples, one per level");
  for (std::size_t i = 0; i < j["levels"].size(); ++i) {
    const auto& tj = j["levels"][i];
    MappingTuple t;
    t.at = jsonPlace(file, levelsPath + "[" + std::to_string(i) + "]");
    if (!tj.is_array() || tj.empty())
      throw InputError(t.at.str() + ": expected a non-empty array of entries");
    for (std::size_t e = 0; e < tj.size(); ++e)
      t.entries.push_back(jsonEntry(tj[e], jsonPlace(file, t.at.path + "[" + std::to_string(e) + "]")));
    m.tuples.push_back(std::move(t));
  }
  requireEqualLengths(m);
  return m;
}

}  // namespace

std::string MappingChoice::valueText() const {
  return value ? std::to_string(*value) : nlohmann::json(text).dump();
}

MappingSpec parseMappingText(std::string_view text, const std::string& file) {
  return MappingTextReader(text, file).read();
}

MappingSpec parseMappingJson(std::string_view text, const std::string& file) {
  const nlohmann::json j = parseJsonInput(text, file);
  if (!j.is_object()) throw InputError(file + ": expected a JSON object with \"maps\"");
  for (const auto& [key, value] : j.items())
    if (key != "target" && key != "maps" && key != "block_bytes" && key != "choices")
      throw InputError(file + ": " + key +
                       ": unknown key (a mapping has \"target\", \"maps\", \"block_bytes\", \"choices\")");
  MappingSpec s;
  s.file = file;
  if (j.contains("target")) {
    if (!j["target"].is_string()) throw InputError(file + ": target: expected a string such as \"upmem\"");
    s.target = j["target"].get<std::string>();
  }
  if (!j.contains("maps") || !j["maps"].is_array() || j["maps"].empty())
    throw InputError(file + ": maps: expected a non-empty array of maps");
  for (std::size_t i = 0; i < j["maps"].size(); ++i)
    s.maps.push_back(jsonMap(j["maps"][i], file, "maps[" + std::to_string(i) + "]", static_cast<int>(i) + 1));
  if (j.contains("block_bytes")) s.blockBytes = jsonEntry(j["block_bytes"], jsonPlace(file, "block_bytes"));
  if (j.contains("choices")) s.choices = jsonChoices(j["choices"], file);
  return s;
}

MappingSpec parseMapping(std::string_view text, const std::string& file) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return parseMappingJson(text, file);
  return parseMappingText(text, file);
}

MappingSpec readMappingFile(const std::string& path) {
  return parseMapping(readInputFile(path, "mapping file"), path);
}

}  // namespace pim
