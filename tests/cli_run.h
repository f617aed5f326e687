// SPDX-License-Identifier: Apache-2.0
// Runs pimscope-cli as a user does, from the tests: its standard output, standard error and exit code.
#pragma once
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_util.h"

namespace pim::test {

struct CliRun {
  int code = -1;
  std::string out, err;
};

#ifdef PIMSCOPE_CLI
/// `pimscope-cli <args>`; standard error goes through `errFile` (a file of the caller's scratch directory:
/// ctest runs test processes in parallel). `env`: "NAME=value ..." set for the command only.
inline CliRun runCli(const std::string& args, const std::string& errFile, const std::string& env = "") {
  const std::string cmd =
      (env.empty() ? "" : env + " ") + std::string(PIMSCOPE_CLI) + " " + args + " 2>" + errFile;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while (p && (n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = p ? pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(errFile);
  r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  return r;
}

/// This process's scratch directory: ctest runs tests in parallel processes, so fixed names under the shared
/// temp dir would race.
inline const TempDir& cliScratch() {
  static const TempDir dir;
  return dir;
}

/// `pimscope-cli <args>`, standard error through the scratch directory; `env` as for runCli.
inline CliRun cli(const std::string& args, const std::string& env = "") {
  return runCli(args, cliScratch().file("cli_err.txt"), env);
}

/// The JSON `pimscope-cli <args>` prints (args include --json), expecting exit code 0; null otherwise.
inline nlohmann::json cliJson(const std::string& args) {
  const CliRun r = cli(args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
  return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

/// Exit code 2, one line on stderr holding every piece of `mentions`, nothing on stdout.
inline void expectCliRefused(const std::string& args, std::initializer_list<std::string> mentions) {
  const CliRun r = cli(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  for (const std::string& m : mentions) EXPECT_NE(r.err.find(m), std::string::npos) << args << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
}
#endif

}  // namespace pim::test
