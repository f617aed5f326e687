// SPDX-License-Identifier: Apache-2.0
// The sanitize test preset leaves tests out by name (CMakePresets.json); a renamed test would silently drop
// out of the list and run under the sanitizers, where its time limits do not hold. Every name the filter
// lists must still be one of this executable's tests, and ctest must be able to read the filter.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace pim::test {
namespace {

// The alternatives at the top level of `pattern`, each with its one parenthesised group (if any) expanded:
// "^A\.(x|y)$|^B\." gives "^A\.x$", "^A\.y$", "^B\.".
std::vector<std::string> namedPatterns(const std::string& pattern) {
  auto splitTop = [](const std::string& s) {
    std::vector<std::string> parts(1);
    int depth = 0;
    for (char c : s) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (c == '|' && depth == 0)
        parts.emplace_back();
      else
        parts.back() += c;
    }
    return parts;
  };
  std::vector<std::string> out;
  for (const std::string& alt : splitTop(pattern)) {
    const auto open = alt.find('('), close = alt.rfind(')');
    if (open == std::string::npos || close == std::string::npos) {
      out.push_back(alt);
      continue;
    }
    for (const std::string& inner : splitTop(alt.substr(open + 1, close - open - 1)))
      out.push_back(alt.substr(0, open) + inner + alt.substr(close + 1));
  }
  return out;
}

std::string sanitizeExclusions() {
  std::ifstream in(std::string(PIMSCOPE_TEST_DATA_DIR) + "/../../CMakePresets.json");
  const auto presets = nlohmann::json::parse(in);
  for (const auto& p : presets.at("testPresets"))
    if (p.at("name") == "sanitize") return p.at("filter").at("exclude").at("name").get<std::string>();
  return {};
}

TEST(SanitizeExclusions, NamedPatternsExpandOneGroupPerAlternative) {
  EXPECT_EQ(namedPatterns(R"(^A\.(x|y)$|^B\.)"),
            (std::vector<std::string>{R"(^A\.x$)", R"(^A\.y$)", R"(^B\.)"}));
}

TEST(SanitizeExclusions, EveryExcludedNameIsATest) {
  std::vector<std::string> tests;
  const auto& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const auto& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t)
      tests.push_back(std::string(suite.name()) + "." + suite.GetTestInfo(t)->name());
  }
  const std::string exclusions = sanitizeExclusions();
  ASSERT_FALSE(exclusions.empty()) << "CMakePresets.json: no sanitize test preset with an exclude filter";
  // scripts/test.sh hands the same expression to `ctest --tests-regex`, whose regular expressions hold at
  // most nine groups: with a tenth, ctest runs no test at all (and says only "Error in compile").
  EXPECT_LE(std::count(exclusions.begin(), exclusions.end(), '('), 9)
      << "CMakePresets.json, sanitize preset: more than nine groups; write further names as alternatives";
  for (const std::string& pattern : namedPatterns(exclusions)) {
    const std::regex re(pattern);
    bool found = false;
    for (const std::string& name : tests) found = found || std::regex_search(name, re);
    EXPECT_TRUE(found) << "CMakePresets.json, sanitize preset: `" << pattern << "` names no test";
  }
}

}  // namespace
}  // namespace pim::test
