// SPDX-License-Identifier: Apache-2.0
// Helpers of the malformed-input catalogue (tests/test_malformed_*.cpp, issue 22): each case asserts the one
// line its input must get.
#pragma once
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <functional>
#include <initializer_list>
#include <string>

#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "tests/store_test_util.h"
#include "tests/test_util.h"

namespace pim::test {

/// The InputError message of `f`, or "<no error>".
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

inline void expectError(const std::function<void()>& f, std::initializer_list<std::string> needles) {
  const std::string msg = errorOf(f);
  for (const std::string& n : needles)
    EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg << "\nexpected to contain: " << n;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

inline std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

inline std::string makeFifo(const TempDir& dir, const std::string& name) {
  const std::string path = dir.file(name);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

inline std::string shipped(const std::string& relative) { return dataDir() + "/" + relative; }

inline const char* const kRedHead =
    "kernel red(b = 1, n = 4096)\n  input  x: f16[b][n]\n  output y: f16[b]\n";

inline std::string kernelWithExtent(const std::string& extent) {
  return "kernel k(b = 1, n = 4096)\n  input  x: f16[b][" + extent + "]\n  output y: f16[b]\n" +
         "  for b < b, i < n: y[b] += x[b][i]\nend\n";
}
inline std::string kernelWithValue(const std::string& value) {
  return std::string(kRedHead) + "  for b < b, i < n: y[b] += " + value + "\nend\n";
}

}  // namespace pim::test
