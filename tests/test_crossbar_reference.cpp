// SPDX-License-Identifier: Apache-2.0
// PIMScope's `--timing pimcomp-nn` against PIMCOMP-NN itself (issue 19, "Checks we will run"). The figures
// below are PIMCOMP-NN's "practical" latency (the HT period, or the LL latency), measured on 2026-11-26 by
// rebuilding its public source (github.com/sunxt99/PIMCOMP-NN, backend at 9f1e3ed, configuration code at
// 9f2f697; only MAX_CHIP lowered to fit memory, jsoncpp and zlib from Debian) and running
// `PIMCOMP-NN -m=<model> -r=<balance|W0H0|uniform> -p=<batch|element>` on its default config.json (12 x 12
// cores, 64 crossbars of 128 x 128: crossbar-pimcomp) and with layout 12 x 14 and 12 crossbars per core
// (crossbar-arch-a). Every run PIMCOMP-NN completes agrees to the nanosecond, except GoogLeNet in LL (+32 ns:
// PIMCOMP-NN names a last node its file does not have and stops at its 2,000-IG cap). docs/crossbar.md has
// the whole table.
#include <gtest/gtest.h>

#include <string>

#include "engine/kernel/network.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"

namespace {

struct Reference {
  const char* backend;
  const char* network;
  pim::crossbar::PipelineMode mode;
  const char* method;
  std::int64_t ns;
  std::int64_t mvms;
};

using enum pim::crossbar::PipelineMode;

class CrossbarReference : public testing::TestWithParam<Reference> {};

TEST_P(CrossbarReference, PimcompNnTimingGivesPimcompNnsFigure) {
  const Reference& ref = GetParam();
  pim::NetworkCompileRequest r;
  r.compile.mode = ref.mode;
  r.compile.replication = ref.method;
  const auto result = pim::compileNetwork(pim::builtinBackends().get(ref.backend),
                                          pim::loadNetworkFile(pim::builtinNetworkPath(ref.network)), r);
  EXPECT_EQ(result.profile.totalNs, ref.ns);
  EXPECT_EQ(result.mvmCount, ref.mvms);
}

INSTANTIATE_TEST_SUITE_P(
    Measured, CrossbarReference,
    testing::Values(Reference{"crossbar-pimcomp", "resnet18", Ht, "balance", 470023, 132500},
                    Reference{"crossbar-pimcomp", "resnet18", Ht, "w0h0", 481124, 132500},
                    Reference{"crossbar-pimcomp", "resnet18", Ht, "uniform", 8279183, 132500},
                    Reference{"crossbar-pimcomp", "resnet18", Ll, "balance", 5362970, 132500},
                    Reference{"crossbar-pimcomp", "resnet18", Ll, "w0h0", 4139256, 132500},
                    Reference{"crossbar-pimcomp", "resnet34", Ht, "balance", 740593, 223836},
                    Reference{"crossbar-pimcomp", "resnet34", Ll, "balance", 10727625, 223836},
                    Reference{"crossbar-pimcomp", "googlenet", Ht, "w0h0", 388258, 113639},
                    Reference{"crossbar-pimcomp", "googlenet", Ht, "balance", 477064, 113639},
                    Reference{"crossbar-arch-a", "resnet18", Ht, "balance", 457761, 132500},
                    Reference{"crossbar-arch-a", "resnet18", Ll, "balance", 2771210, 132500},
                    Reference{"crossbar-arch-a", "googlenet", Ht, "w0h0", 633793, 113639}),
    [](const testing::TestParamInfo<Reference>& info) {
      std::string name = std::string(info.param.backend) + "_" + info.param.network + "_" +
                         (info.param.mode == Ht ? "ht" : "ll") + "_" + info.param.method;
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

}  // namespace
