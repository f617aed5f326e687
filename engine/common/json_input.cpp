// SPDX-License-Identifier: Apache-2.0
#include "engine/common/json_input.h"

#include <vector>

#include "engine/common/error.h"
#include "engine/common/input_file.h"

namespace pim {
namespace {

// nlohmann's what() starts "[json.exception.parse_error.101] parse error at line 1, column 2: "; the
// position is printed by us (as line and column of the text), so keep only the description.
std::string describeNlohmannError(std::string what) {
  if (what.rfind("[json.exception.", 0) == 0)
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
  if (what.rfind("parse error", 0) == 0)
    if (auto p = what.find(": "); p != std::string::npos) what = what.substr(p + 2);
  return what;
}

// Builds the json of a SAX event stream, as nlohmann's own DOM builder does, but refuses a repeated key in
// one object and nesting deeper than a limit. Each open container is a frame: the value and, for messages,
// its key path.
template <class Json>
class BoundedBuilder {
 public:
  explicit BoundedBuilder(int maxDepth) : m_maxDepth(maxDepth) {}

  bool null() { return add(Json(nullptr)); }
  bool boolean(bool v) { return add(Json(v)); }
  bool number_integer(typename Json::number_integer_t v) { return add(Json(v)); }
  bool number_unsigned(typename Json::number_unsigned_t v) { return add(Json(v)); }
  bool number_float(typename Json::number_float_t v, const typename Json::string_t&) { return add(Json(v)); }
  bool string(typename Json::string_t& v) { return add(Json(std::move(v))); }
  bool binary(typename Json::binary_t& v) { return add(Json(typename Json::binary_t(std::move(v)))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(typename Json::string_t& k) {
    Frame& f = m_stack.back();
    if (f.value->contains(k)) {
      m_duplicate = jsonPathJoin(f.path, k);
      return false;
    }
    f.key = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    m_errorByte = position;
    m_error = describeNlohmannError(e.what());
    return false;
  }

  Json root;
  std::string m_error, m_duplicate;
  std::size_t m_errorByte = 0;
  bool m_tooDeep = false;

 private:
  struct Frame {
    Json* value;
    std::string path, key;
  };

  // Where the next value goes: the root, the end of the open array, or the open object's current key.
  Json* place(Json v) {
    if (m_stack.empty()) {
      root = std::move(v);
      return &root;
    }
    Frame& f = m_stack.back();
    if (f.value->is_array()) {
      f.value->push_back(std::move(v));
      return &f.value->back();
    }
    return &((*f.value)[f.key] = std::move(v));
  }
  // The key path of the next value: only containers keep theirs (for a duplicate key's message), so a
  // scalar does not pay for building one.
  std::string nextPath() const {
    if (m_stack.empty()) return {};
    const Frame& f = m_stack.back();
    if (f.value->is_array()) return f.path + "[" + std::to_string(f.value->size()) + "]";
    return jsonPathJoin(f.path, f.key);
  }
  bool add(Json v) {
    place(std::move(v));
    return true;
  }
  bool open(Json container) {
    if (static_cast<int>(m_stack.size()) >= m_maxDepth) {
      m_tooDeep = true;
      return false;
    }
    std::string path = nextPath();
    Json* j = place(std::move(container));
    m_stack.push_back({j, std::move(path), {}});
    return true;
  }
  bool close() {
    m_stack.pop_back();
    return true;
  }

  int m_maxDepth;
  std::vector<Frame> m_stack;
};

// Byte offset of the bracket that opens level maxDepth + 1 (outside strings), for the message's position.
std::size_t offsetOfLevel(std::string_view text, int maxDepth) {
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

}  // namespace

std::string lineColumnAt(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string jsonPathJoin(std::string_view base, std::string_view key) {
  if (base.empty()) return std::string(key);
  return std::string(base) + "." + std::string(key);
}

template <class Json>
Json parseJsonInput(std::string_view text, std::string_view origin, int maxDepth) {
  BoundedBuilder<Json> b(maxDepth);
  if (Json::sax_parse(text.begin(), text.end(), &b)) return std::move(b.root);
  const std::string where(origin);
  if (!b.m_duplicate.empty())
    throw InputError(where + ": " + b.m_duplicate + ": duplicate key (a key may appear once in an object)");
  if (b.m_tooDeep)
    throw InputError(where + ": " + lineColumnAt(text, offsetOfLevel(text, maxDepth)) +
                     ": invalid JSON: nested deeper than " + std::to_string(maxDepth) + " levels");
  // nlohmann's byte position is 1-based and points just past the offending character.
  const std::size_t at = b.m_errorByte == 0 ? 0 : b.m_errorByte - 1;
  throw InputError(where + ": " + lineColumnAt(text, at) + ": invalid JSON: " + b.m_error);
}

template <class Json>
Json readJsonFile(const std::string& path, std::string_view what) {
  return parseJsonInput<Json>(readInputFile(path, what), path);
}

template nlohmann::json parseJsonInput(std::string_view, std::string_view, int);
template nlohmann::ordered_json parseJsonInput(std::string_view, std::string_view, int);
template nlohmann::json readJsonFile(const std::string&, std::string_view);
template nlohmann::ordered_json readJsonFile(const std::string&, std::string_view);

}  // namespace pim
