// SPDX-License-Identifier: Apache-2.0
// Every declared parameter of a crossbar backend either changes what `compile` reports (time or energy, in
// one of the two pipeline modes and two timing modes) or is declared unread by the target with the reason: a
// what-if edit is never silently ignored.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/kernel/network.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"

namespace {

namespace cb = pim::crossbar;

/// Time and energy of lenet5 in HT and LL under both timing modes: 8 figures.
std::vector<double> figures(const pim::Backend& b, const pim::Network& net) {
  std::vector<double> out;
  for (const auto mode : {cb::PipelineMode::Ht, cb::PipelineMode::Ll})
    for (const auto timing : {cb::TimingMode::PimcompNn, cb::TimingMode::Intended}) {
      pim::NetworkCompileRequest r;
      r.compile.mode = mode;
      r.timing = timing;
      try {
        const auto c = pim::compileNetwork(b, net, r);
        out.push_back(static_cast<double>(c.profile.totalNs));
        out.push_back(c.energyNj);
      } catch (const pim::InputError&) {  // a refusal is a figure too (e.g. LL out of local memory)
        out.push_back(-1);
        out.push_back(-1);
      }
    }
  return out;
}

TEST(CrossbarParameters, EveryParameterNotDeclaredUnreadChangesAFigure) {
  const pim::Network net = pim::loadNetworkFile(pim::builtinNetworkPath("lenet5"));
  const pim::Backend& shipped = pim::builtinBackends().get("crossbar-arch-c8");  // 16 chips: links matter
  const std::vector<double> base = figures(shipped, net);
  std::set<std::string> unread;
  for (const auto& u : pim::targetOf(shipped).unreadParameters(shipped)) unread.insert(u.key);
  for (const pim::Parameter& p : shipped.parameters) {
    if (unread.count(p.key)) continue;
    SCOPED_TRACE(p.key);
    // A flag flips; a number is doubled, halved, divided by 8 and by 64 (within its range, whole where it
    // must be): some parameters matter only past a threshold (a local memory that already holds everything,
    // cores per chip above the accelerator's).
    std::vector<double> values;
    if (p.integer && p.max <= 1) {
      values = {1 - p.value};
    } else {
      for (const double f : {2.0, 0.5, 0.125, 1.0 / 64}) {
        double v = p.value * f;
        if (p.integer) v = static_cast<double>(static_cast<long long>(v));
        if (v >= p.min && v <= p.max && v != p.value && (v > 0 || p.min <= 0)) values.push_back(v);
      }
    }
    bool changed = false;
    for (const double v : values) {
      pim::Backend b = shipped;
      try {
        b.setParameter(p.key, v);
      } catch (const pim::InputError&) {  // a cross-check refuses it (chips must split the cores)
        continue;
      }
      changed = changed || figures(b, net) != base;
    }
    EXPECT_TRUE(changed) << p.key << " changes nothing at any of " << values.size() << " values";
  }
}

}  // namespace
