// SPDX-License-Identifier: Apache-2.0
// The fuzz corpus as regression tests (issue 22): every committed seed and reproducer of
// tests/fuzz/corpus/<target> is fed to its reader in every build, the sanitizer pass included, exactly as
// the libFuzzer target does (tests/fuzz/fuzz_inputs.h). Each must be read or refused with an InputError; the
// files that are valid inputs must still be read, so a reader that starts refusing everything fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "tests/fuzz/fuzz_inputs.h"
#include "tests/test_util.h"

namespace pim {
namespace {

namespace fs = std::filesystem;

/// The files of one target's corpus, by name.
std::set<std::string> corpus(const std::string& target) {
  const fs::path dir = fs::path(PIMSCOPE_TEST_DATA_DIR).parent_path() / "fuzz" / "corpus" / target;
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().string());
  return names;
}

/// Runs `read` on every file of `target`'s corpus and returns the names (without folder) it accepted.
template <class Read>
std::set<std::string> replay(const std::string& target, Read read) {
  std::set<std::string> acceptedNames;
  const std::set<std::string> files = corpus(target);
  EXPECT_GE(files.size(), 4u) << target;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    bool ok = false;
    EXPECT_NO_THROW(ok = read(test::readBytes(f)));  // only InputError is an answer
    if (ok) acceptedNames.insert(fs::path(f).filename().string());
  }
  return acceptedNames;
}

TEST(FuzzCorpus, DslSeedsAreReadOrRefused) {
  const auto ok = replay("dsl", fuzz::dsl);
  EXPECT_TRUE(ok.count("gemv.pim") && ok.count("attn.pim") && ok.count("nested.pim"));
  EXPECT_FALSE(ok.count("too_deep.pim"));
}

TEST(FuzzCorpus, BackendSeedsAreReadOrRefused) {
  const auto ok = replay("backend", fuzz::backend);
  EXPECT_TRUE(ok.count("hbm-pim.json") && ok.count("upmem.json"));
  EXPECT_FALSE(ok.count("duplicate_key.json"));
}

TEST(FuzzCorpus, ScheduleSeedsAreReadOrRefused) {
  const auto ok = replay("schedule", fuzz::schedule);
  EXPECT_EQ(ok, (std::set<std::string>{"schedule_crossbar-pimcomp_conv2d.json", "schedule_gddr6-aim_red.json",
                                       "schedule_hbm2-pim_red.json"}));
}

TEST(FuzzCorpus, SessionSeedsAreReadOrRefused) {
  const auto ok = replay("session", fuzz::session);
  EXPECT_EQ(ok, (std::set<std::string>{"format1.pimsession", "gemv_hbm-pim.pimsession",
                                       "history_format5.pimsession"}));
}

TEST(FuzzCorpus, StoreSeedsAreReadOrRefused) {
  const auto ok = replay("store", fuzz::store);
  EXPECT_EQ(ok, (std::set<std::string>{"v1.db", "v3.db", "v4.db"}));
}

TEST(FuzzCorpus, MappingSeedsAreReadOrRefused) {
  const auto ok = replay("mapping", fuzz::mapping);
  // fig8b_sub_maps.txt: Fig. 8b over GEMV 1 x 512 x 1,152 (its M4 within a rank), placed as sub-maps.
  EXPECT_EQ(ok, (std::set<std::string>{"choices.json", "fig8a.json", "fig8a.map", "fig8b_sub_maps.txt",
                                       "single_dpu.map"}));
}

TEST(FuzzCorpus, OnnxSeedsAreReadOrRefused) {
  const auto ok = replay("onnx", fuzz::onnx);
  EXPECT_EQ(ok, (std::set<std::string>{"lenet5.onnx", "resnet18.onnx"}));
}

TEST(FuzzCorpus, CrossbarSeedsCompileOrAreRefused) {
  const auto ok = replay("crossbar", fuzz::crossbar);
  // lenet_unread_rows.json: a 1x2 pool of stride 2 leaves conv1's odd rows unread (found by fuzz_crossbar).
  EXPECT_EQ(ok, (std::set<std::string>{"grouped_conv.json", "lenet5.json", "lenet_unread_rows.json",
                                       "tiny_stride2.json"}));
}

TEST(FuzzCorpus, NetworkSeedsAreReadOrRefused) {
  const auto ok = replay("network", fuzz::network);
  EXPECT_EQ(ok, (std::set<std::string>{"mobilenet_v1.json", "resnet18.json"}));
}

TEST(FuzzCorpus, HierarchySeedsAreReadOrRefused) {
  const auto ok = replay("hierarchy", fuzz::hierarchy);
  EXPECT_EQ(ok, (std::set<std::string>{"pimopt-default.json", "pimopt-doc.json", "pimopt-small.json"}));
}

TEST(FuzzCorpus, ConvMappingSeedsAreReadOrRefused) {
  const auto ok = replay("convmap", fuzz::convMapping);
  // An invalid mapping is read (its verdict lists what it breaks); an absurd layer is refused.
  EXPECT_EQ(ok, (std::set<std::string>{"conv_strided.json", "fc.json", "invalid_factors.json"}));
}

}  // namespace
}  // namespace pim
