// SPDX-License-Identifier: Apache-2.0
// Writing JSON (CLI output, schedule files, model metadata). nlohmann's dump() throws type_error 316 on a
// string that is not valid UTF-8, after the work is done and as a raw library error; text reaches our JSON
// from paths and names a user typed, so it must never throw there.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pim {

/// Byte offset of the first byte of `s` that does not start or continue a valid UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF are invalid), or std::string_view::npos.
std::size_t firstInvalidUtf8(std::string_view s);

/// j.dump(indent) that never throws on text: an invalid UTF-8 byte in a string becomes U+FFFD. Readers that
/// must round-trip text exactly (a kernel's source in a schedule file) refuse invalid UTF-8 when they read
/// it (the DSL parser does), so nothing that is read back is ever replaced. A template, not a function of
/// nlohmann::json: an ordered_json converted to json would have its keys sorted (a schedule file's backend
/// parameters are hashed in file order).
template <class Json>
std::string dumpJson(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace pim
