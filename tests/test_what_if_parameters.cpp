// SPDX-License-Identifier: Apache-2.0
// What-if parameters that are real: every declared parameter of a shipped DRAM-PIM backend that the target
// does not declare unread (ITarget::unreadParameters) changes some result of some library kernel: the draft
// counts, the vendor or GPU baseline, or a simulated draft. A parameter that changes nothing must be declared
// unread, with the reason the what-if form shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "engine/common/error.h"
#include "engine/core/candidate_space.h"
#include "engine/core/estimator.h"
#include "engine/kernel/library.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "tests/test_util.h"

namespace {

using pim::Backend;

void add(std::ostringstream& os, const pim::Evaluation& e) {
  os << e.timeNs << '/' << e.energyPj << '/' << e.totalCycles << '/' << e.cycles[0] << '/' << e.cycles[2]
     << '/' << e.unitsUsed << '/' << e.paddingBytes << ';';
}

void add(std::ostringstream& os, const pim::Baseline& b) {
  os << b.name << (b.available ? "+" : "-") << b.reason << ':';
  if (b.available) add(os, b.eval);
}

/// Every result a what-if study looks at, for the library kernels `b` can run at their default shapes.
std::string fingerprint(const Backend& b) {
  std::ostringstream os;
  for (const pim::LibraryKernel& entry : pim::KernelLibrary::builtin().entries()) {
    // conv2d already puts a conv layer's seven dimensions through every parameter; the strided one would
    // only add time (a third of this test's).
    if (entry.name == "conv2d_s2") continue;
    os << entry.name << '{';
    try {
      const pim::Kernel k = pim::KernelLibrary::builtin().get(entry.name);
      const pim::Problem p(b, k, pim::parseShape(k, ""));
      const pim::ITarget& t = pim::targetOf(b);
      for (const std::string& r : t.check(p)) os << r << ';';
      const auto space = t.candidates(p);
      const pim::PruneCounts c = space->counts();
      os << c.generated << '/' << c.remaining << ';';
      for (const auto& r : c.rules) os << r.removed << ';';
      add(os, pim::vendorBaseline(p));
      add(os, pim::gpuBaseline(p));
      const auto estimator = t.estimator(p, pim::OptimizerOptions{});
      for (const pim::Draft& d : pim::firstKept(*space, 2)) {
        if (estimator) {
          std::vector<float> f;
          estimator->features(d, f);
          for (float v : f) os << v << ',';
        }
        try {
          add(os, pim::evaluateDraft(p, d));
        } catch (const pim::InputError& e) {
          os << e.what() << ';';
        }
      }
    } catch (const pim::InputError& e) {
      os << e.what();
    }
    os << "}\n";
  }
  return os.str();
}

/// Other values of `p` to try, nearest first (a flag flipped).
std::vector<double> otherValues(const pim::Parameter& p) {
  if (p.unit == "bool") return {p.value == 0 ? 1.0 : 0.0};
  std::vector<double> out;
  for (double v :
       {p.value * 2, p.value + 1, p.value - 1, std::floor(p.value / 2), p.value + 1000, p.value * 10})
    if (v != p.value) out.push_back(v);
  return out;
}

/// `b` with `changes` applied together, or nullopt when the engine refuses them.
std::optional<Backend> applied(const Backend& b, const std::vector<std::pair<std::string, double>>& changes) {
  Backend e = b;
  try {
    e.setParameters(changes);
    return e;
  } catch (const pim::InputError&) {
    return std::nullopt;
  }
}

/// Edits of `p` the engine accepts: alone, or (a field tied to others by the schema's cross-checks, such as
/// the banks of a group) together with one or two counts scaled by 2 or 1/2, as the what-if form's pending
/// edits let a user make them.
std::vector<Backend> edits(const Backend& b, const pim::Parameter& p) {
  std::vector<Backend> out;
  for (double v : otherValues(p))
    if (auto e = applied(b, {{p.key, v}})) out.push_back(std::move(*e));
  if (!out.empty() || p.unit != "count") return out;
  std::vector<const pim::Parameter*> counts;
  for (const pim::Parameter& q : b.parameters)
    if (q.unit == "count" && q.key != p.key && q.key.rfind("pim.", 0) != 0) counts.push_back(&q);
  for (double f : {2.0, 0.5}) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      for (std::size_t j = i; j < counts.size(); ++j) {
        for (double g : {2.0, 0.5}) {
          for (double h : {2.0, 0.5}) {
            std::vector<std::pair<std::string, double>> c = {{p.key, p.value * f},
                                                             {counts[i]->key, counts[i]->value * g}};
            if (j != i) c.emplace_back(counts[j]->key, counts[j]->value * h);
            if (auto e = applied(b, c)) return {std::move(*e)};
          }
        }
      }
    }
  }
  return out;
}

// One test per backend, so that ctest runs them side by side (together they are the suite's longest test).
class WhatIfParameter : public ::testing::TestWithParam<const char*> {};

TEST_P(WhatIfParameter, ChangesAResultUnlessDeclaredUnread) {
  const char* name = GetParam();
  const Backend& b = pim::builtinBackends().get(name);
  const std::string before = fingerprint(b);
  std::set<std::string> unread;
  for (const auto& u : pim::targetOf(b).unreadParameters(b)) unread.insert(u.key);
  for (const pim::Parameter& p : b.parameters) {
    if (p.key.rfind("energy.", 0) == 0) continue;
    const std::vector<Backend> tries = edits(b, p);
    if (tries.empty()) {
      ADD_FAILURE() << name << " " << p.key << ": no other value accepted";
      continue;
    }
    if (unread.count(p.key)) {
      // Unread: neither the nearest nor the largest step may move anything.
      EXPECT_EQ(fingerprint(tries.front()), before) << name << " " << p.key << " is declared unread";
      EXPECT_EQ(fingerprint(tries.back()), before) << name << " " << p.key << " is declared unread";
      continue;
    }
    // The nearest value first; a larger step only when it changed nothing (a spacing under another).
    bool changed = false;
    for (const Backend& e : tries)
      if ((changed = fingerprint(e) != before)) break;
    EXPECT_TRUE(changed) << name << " " << p.key << " changes no result";
  }
}

INSTANTIATE_TEST_SUITE_P(DramPimBackends, WhatIfParameter,
                         ::testing::Values("hbm2-pim", "hbm-pim", "attacc", "gddr6-aim"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace

namespace {

TEST(WhatIfParameters, AttaccMacSpacingWithoutThePowerConstraintCountsOnceItIsOff) {
  Backend b = pim::builtinBackends().get("attacc");
  const auto unreadKeys = [](const Backend& x) {
    std::set<std::string> keys;
    for (const auto& u : pim::targetOf(x).unreadParameters(x)) keys.insert(u.key);
    return keys;
  };
  EXPECT_TRUE(unreadKeys(b).count("pim.MACAB_to_MACAB_nopower"));
  b.setParameters({{"pim.power_constraint", 0}});
  EXPECT_FALSE(unreadKeys(b).count("pim.MACAB_to_MACAB_nopower"));
  const std::string before = fingerprint(b);
  b.setParameters({{"pim.MACAB_to_MACAB_nopower", 5}});
  EXPECT_NE(fingerprint(b), before);
}

double gpuNs(const Backend& b, const std::string& kernel, const std::string& dims) {
  const pim::Kernel k = pim::KernelLibrary::builtin().get(kernel);
  const pim::Baseline g = pim::gpuBaseline(pim::Problem(b, k, pim::parseShape(k, dims)));
  EXPECT_TRUE(g.available) << g.reason;
  return g.eval.timeNs;
}

// The GPU the speed-ups compare against is the host the backend declares: a decode GEMV is memory-bound, so
// twice the host bandwidth halves its GPU time; a large GEMM is compute-bound and follows hostTflops.
TEST(WhatIfParameters, HostBandwidthAndThroughputFeedTheGpuBaseline) {
  const Backend shipped = pim::builtinBackends().get("hbm-pim");
  const double gemv = gpuNs(shipped, "gemv", "b=1,out=4096,in=4096");
  Backend wide = shipped;
  wide.setParameters({{"system.hostBandwidthGBps", 2 * shipped.system.hostBandwidthGBps}});
  EXPECT_NEAR(gpuNs(wide, "gemv", "b=1,out=4096,in=4096"), gemv / 2, gemv * 1e-9);
  EXPECT_NE(pim::gpuBaseline(pim::Problem(wide, pim::KernelLibrary::builtin().get("gemv"),
                                          pim::parseShape(pim::KernelLibrary::builtin().get("gemv"), "")))
                .summary.find("host GPU as edited: 6704 GB/s"),
            std::string::npos);

  const std::string big = "m=2048,n=2048,k=2048";
  const double gemm = gpuNs(shipped, "gemm", big);
  Backend fast = shipped;
  fast.setParameters({{"system.hostTflops", 2 * shipped.system.hostTflops}});
  EXPECT_LT(gpuNs(fast, "gemm", big), gemm);
}

TEST(WhatIfParameters, AHostWithoutThroughputHasNoGpuBaselineAndSaysWhy) {
  Backend b = pim::builtinBackends().get("attacc");
  b.setParameters({{"system.hostTflops", 0}});
  const pim::Kernel k = pim::KernelLibrary::builtin().get("gemv");
  const pim::Baseline g = pim::gpuBaseline(pim::Problem(b, k, pim::parseShape(k, "")));
  EXPECT_FALSE(g.available);
  EXPECT_NE(g.reason.find("system.hostTflops = 0"), std::string::npos) << g.reason;
}

// hbm2-pim and gddr6-aim do not describe the GPU beside them: their GPU-only time is attacc.md's A100 as
// before, and the what-if form says their host fields are not read.
TEST(WhatIfParameters, BackendsWithoutAHostGpuCompareAgainstTheReferenceA100) {
  for (const char* name : {"hbm2-pim", "gddr6-aim"}) {
    const Backend& b = pim::builtinBackends().get(name);
    EXPECT_DOUBLE_EQ(gpuNs(b, "gemv", "b=1,out=4096,in=4096"),
                     gpuNs(pim::builtinBackends().get("hbm-pim"), "gemv", "b=1,out=4096,in=4096"))
        << name;
    std::set<std::string> keys;
    for (const auto& u : pim::targetOf(b).unreadParameters(b)) keys.insert(u.key);
    EXPECT_TRUE(keys.count("system.hostBandwidthGBps") && keys.count("system.hostTflops")) << name;
  }
}

}  // namespace

namespace {
// Found by this suite under UBSan: an edit to 128 banks per group reached the code generator, whose 64-bit
// bank masks cannot address bank 64. Such an edit is refused with the limit instead.
TEST(WhatIfParameters, MoreThan64BanksPerSimulatedChannelAreRefusedWithTheLimit) {
  Backend b = pim::builtinBackends().get("hbm-pim");
  try {
    b.setParameters({{"dram.banksPerBankGroup", 8}, {"core.coresPerGroup", 128}});
    FAIL() << "128 banks per group accepted";
  } catch (const pim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("64 banks per simulated channel"), std::string::npos) << e.what();
  }
}
}  // namespace
