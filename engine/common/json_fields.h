// SPDX-License-Identifier: Apache-2.0
// Reading the fields of one JSON object a user wrote (a network node, a model file) with errors of one line:
// the place (file, node) and the field's path ("ffn.hidden", "param.kernel_h"), so a user finds the spot
// without guessing. Each reader derives its typed getters (what a count, a flag or a shape means there).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "engine/common/error.h"

namespace pim {

/// A value as a message quotes it: short and on one line (dump escapes control characters).
inline std::string quoteJson(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

/// Levenshtein distance, for "did you mean": keys and names are short, so the quadratic table costs nothing.
std::size_t editDistance(std::string_view a, std::string_view b);

/// The fields of `obj`; `Reader` is the deriving reader, which object() returns for a nested object.
template <class Reader>
class JsonFields {
 public:
  JsonFields(const nlohmann::json& obj, std::string where, std::string prefix = {})
      : m_obj(obj), m_where(std::move(where)), m_prefix(std::move(prefix)) {}

  [[noreturn]] void fail(std::string_view field, std::string_view problem) const {
    throw InputError(m_where + ": " + m_prefix + std::string(field) + ": " + std::string(problem));
  }
  bool has(std::string_view key) const { return m_obj.contains(key); }
  const nlohmann::json& at(std::string_view key) const {
    if (!has(key)) fail(key, "missing");
    return m_obj.find(key).value();
  }
  Reader object(std::string_view key) const {
    if (!at(key).is_object()) fail(key, "must be an object, got " + quoteJson(at(key)));
    return Reader(at(key), m_where, m_prefix + std::string(key) + ".");
  }

 protected:
  const nlohmann::json& m_obj;
  std::string m_where, m_prefix;
};

}  // namespace pim
