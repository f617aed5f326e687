// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the engine tests.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"

namespace pim::test {

/// A library kernel at a shape on a shipped backend, with the kernel's declared residency, or with the
/// tensors named in `resident` resident and every other streamed.
inline std::unique_ptr<Problem> problem(const std::string& backend, const std::string& kernel,
                                        const std::string& dims,
                                        const std::optional<std::string>& resident = std::nullopt) {
  const Kernel k = KernelLibrary::builtin().get(kernel);
  std::optional<Residency> r;
  if (resident) {
    Residency none;
    none.resident.assign(k.tensors.size(), false);
    r = overrideResidency(k, none, *resident, "");
  }
  return std::make_unique<Problem>(builtinBackends().get(backend), k, parseShape(k, dims), r);
}

/// `f` throws an InputError whose message holds every one of `needles`.
inline void expectInputError(const std::function<void()>& f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << msg << " lacks " << n;
  }
}

/// The same, and the message is one line (the CLI prints it after "error: ").
inline void expectOneLineInputError(const std::function<void()>& f,
                                    std::initializer_list<std::string> needles) {
  std::string msg;
  expectInputError(
      [&] {
        try {
          f();
        } catch (const InputError& e) {
          msg = e.what();
          throw;
        }
      },
      needles);
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

/// A fresh directory under the test temp dir, removed (permissions restored first) at scope exit, by the
/// process that made it only: a forked child (a death test) that exits normally runs the destructors of its
/// copies too, and removed the parent's CLI scratch directory under the tests that ran after it.
class TempDir {
 public:
  TempDir() : m_owner(getpid()) {
    std::string tmpl = testing::TempDir() + "pimscope-test-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
    m_path = tmpl;
  }
  ~TempDir() {
    if (getpid() != m_owner) return;
    std::error_code ec;
    std::filesystem::permissions(m_path, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return (std::filesystem::path(m_path) / name).string(); }
  /// Entries directly in the directory (to check that nothing, e.g. a temporary file, was left behind).
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(std::filesystem::directory_iterator(m_path), std::filesystem::directory_iterator()));
  }

 private:
  pid_t m_owner;
  std::string m_path;
};

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

}  // namespace pim::test
