// SPDX-License-Identifier: Apache-2.0
// Hardware model: the five shipped backends load, hold the spec's values, round-trip, hash stably, and
// malformed input is rejected with the file name and the field path in the message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/target/registry.h"
#include "tests/families/roofline_target.h"

using pim::Backend;
using pim::BackendRegistry;
using pim::InputError;

namespace {

std::string backendPath(const std::string& name) { return pim::dataDir() + "/backends/" + name + ".json"; }

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Expects `f` to throw InputError whose message contains every needle.
void expectInputError(const std::function<void()>& f, std::initializer_list<std::string> needles) {
  try {
    f();
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    std::string msg = e.what();
    for (const auto& n : needles)
      EXPECT_NE(msg.find(n), std::string::npos) << "message '" << msg << "' lacks '" << n << "'";
  }
}

/// Loads hbm2-pim's text, lets `edit` change its JSON, and parses it as "bad.json".
Backend parseEdited(const std::function<void(nlohmann::ordered_json&)>& edit) {
  auto j = nlohmann::ordered_json::parse(readFile(backendPath("hbm2-pim")));
  edit(j);
  return pim::parseBackend(j.dump(2), "bad.json");
}

}  // namespace

TEST(BackendRegistry, LoadsEveryShippedBackend) {
  const auto& reg = pim::builtinBackends();
  const auto shipped = pim::test::shippedBackends();
  ASSERT_EQ(shipped.size(), 16u);
  // Sorted by file name.
  std::vector<std::string> names;
  for (const Backend& b : shipped) names.push_back(b.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"attacc", "crossbar-arch-a-phys", "crossbar-arch-a", "crossbar-arch-b",
                                      "crossbar-arch-c", "crossbar-arch-c8", "crossbar-pimcomp", "gddr6-aim",
                                      "hbm-pim", "hbm2-pim", "pimopt-default", "pimopt-doc", "pimopt-hbm-pim",
                                      "pimopt-hbm2-pim", "pimopt-small", "upmem"}));
  for (const Backend& b : shipped) {
    EXPECT_FALSE(b.description.empty()) << b.name;
    if (b.schema->isTextField("core", "dtypes")) {  // the families with DCC's core level
      EXPECT_FALSE(b.core.dtypes.empty()) << b.name;
    }
    if (b.param("dram.channels")) {  // a DRAM-PIM family: its cores are the banks of a group
      EXPECT_EQ(b.banksPerPimGroup(),
                b.pimRanks() * b.dram.bankGroups * b.dram.banksPerBankGroup * b.group.pseudoChannelsPerGroup)
          << b.name;
    }
    for (const auto& p : b.parameters) {
      EXPECT_FALSE(p.source.empty()) << b.name << " " << p.key;
      EXPECT_FALSE(p.description.empty()) << b.name << " " << p.key;
      EXPECT_LE(p.min, p.value) << b.name << " " << p.key;
      EXPECT_LE(p.value, p.max) << b.name << " " << p.key;
    }
  }
  expectInputError([&] { reg.get("nope"); }, {"nope", "attacc", "upmem"});
  // Loaded once.
  EXPECT_EQ(&pim::builtinBackends(), &reg);
}

TEST(BackendRegistry, DuplicateNameRejected) {
  BackendRegistry r;
  r.add(pim::loadBackendFile(backendPath("attacc")));
  expectInputError([&] { r.add(pim::loadBackendFile(backendPath("attacc"))); },
                   {"attacc", "already registered"});
}

TEST(BackendHbm2Pim, ValuesPinnedToSpec) {
  const Backend& b = pim::builtinBackends().get("hbm2-pim");
  EXPECT_EQ(b.family, "hbm2-pim");
  EXPECT_EQ(b.timing.tRCDRD, 14);
  EXPECT_EQ(b.timing.tRCDWR, 10);
  EXPECT_EQ(b.timing.tRC, 47);
  EXPECT_EQ(b.timing.tRAS, 33);
  EXPECT_EQ(b.timing.tRP, 14);
  EXPECT_EQ(b.timing.CL, 20);
  EXPECT_EQ(b.timing.CWL, 8);
  EXPECT_EQ(b.timing.BL, 4);
  EXPECT_EQ(b.timing.tFAW, 0);
  EXPECT_EQ(b.timing.tREFI, 3900);
  EXPECT_EQ(b.timing.tRFC, 350);
  EXPECT_EQ(b.core.coresPerGroup, 8);
  EXPECT_EQ(b.core.banksPerCore, 2);
  EXPECT_EQ(b.banksPerPimGroup(), 16);
  EXPECT_EQ(b.core.simdLanes, 16);
  EXPECT_EQ(b.core.registerBytes, 512);
  EXPECT_EQ(b.totalGroups(), 64);
  EXPECT_EQ(b.dram.ranks, 2);
  EXPECT_EQ(b.pimRanks(), 1);
  EXPECT_EQ(b.dram.rowBytes(), 1024);
  EXPECT_DOUBLE_EQ(b.dram.tCKns, 1.0);
  EXPECT_DOUBLE_EQ(b.system.hostBandwidthGBps, 1024.0);
  EXPECT_TRUE(b.group.broadcast);
  EXPECT_TRUE(b.supportsOp("mac"));
  EXPECT_TRUE(b.supportsOp("relu"));
  EXPECT_FALSE(b.supportsOp("softmax"));
  EXPECT_TRUE(b.hasUnit("accumulator"));
  ASSERT_EQ(b.core.dtypes.size(), 1u);
  EXPECT_EQ(b.core.dtypes[0], pim::DType::F16);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.WR_to_PRE"), 26);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.RD_to_WR"), 15);
}

TEST(BackendAttAcc, ValuesPinnedToSpec) {
  const Backend& b = pim::builtinBackends().get("attacc");
  EXPECT_DOUBLE_EQ(b.dram.tCKns, 0.769);
  EXPECT_EQ(b.banksPerPimGroup(), 64);
  EXPECT_EQ(b.dram.banksPerPseudoChannel() * b.group.pseudoChannelsPerGroup, 64);
  EXPECT_EQ(b.core.coresPerGroup, 64);
  EXPECT_EQ(b.group.groupsPerDevice, 16);
  EXPECT_EQ(b.system.devices, 5);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.MACAB_to_MACAB"), 6);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.MACAB_to_MACAB_nopower"), 4);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.ACTAB_to_MACAB"), 19);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.ACTAB_to_ACTAB"), 63);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.power_constraint"), 1);
  EXPECT_EQ(b.timing.tFAW, 39);
  EXPECT_EQ(b.timing.tREFI, 5070);
  EXPECT_TRUE(b.hasUnit("softmax"));
  EXPECT_TRUE(b.supportsOp("mac"));
  EXPECT_FALSE(b.supportsOp("add"));
  EXPECT_DOUBLE_EQ(b.system.hostBandwidthGBps, 3352);
  EXPECT_DOUBLE_EQ(b.energyPj.at("energy.GPU_OFFCHIP_BYTE"), 28.72);
}

TEST(BackendOthers, ValuesPinned) {
  const auto& reg = pim::builtinBackends();
  const Backend& hp = reg.get("hbm-pim");
  EXPECT_EQ(hp.core.fpuSharedBy, 2);
  EXPECT_EQ(hp.core.registerBytes, 256);
  EXPECT_EQ(hp.banksPerPimGroup(), 64);
  EXPECT_FALSE(hp.hasUnit("softmax"));
  const Backend& g = reg.get("gddr6-aim");
  EXPECT_EQ(g.banksPerPimGroup(), 16);
  EXPECT_EQ(g.core.dtypes[0], pim::DType::BF16);
  EXPECT_TRUE(g.hasUnit("global-buffer"));
  const Backend& u = reg.get("upmem");
  EXPECT_EQ(u.core.threads, 24);
  EXPECT_EQ(u.core.dataMemoryBytes, 65536);
  EXPECT_DOUBLE_EQ(u.core.clockMHz, 350);
  EXPECT_EQ(u.totalGroups() * u.coresPerGroup(), 2560);
  // upmem.md: the revolver gap, CoMoNM's launch overhead, the derived DMA contention law, PrIM's defaults.
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.minTaskletCPI"), 11);
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.launchMs"), 0.066011);
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.dmaServiceBase"), 34);
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.dmaServicePerByte"), 0.53);
  EXPECT_FALSE(u.param("pim.dmaServicePerByte")->integer);
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.tasklets"), 16);
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.blockBytes"), 1024);
  EXPECT_DOUBLE_EQ(u.pimTiming.at("pim.MRAM_bytes"), 64ll << 20);
}

TEST(BackendSchema, UpmemFilesCarryNoDramTiming) {
  const Backend& u = pim::builtinBackends().get("upmem");
  EXPECT_EQ(u.param("timing.tRCDRD"), nullptr);
  EXPECT_EQ(u.param("dram.rows"), nullptr);
  // A DRAM section is not part of the upmem family's schema: refused at load, naming the file and section.
  std::string text = u.toJson();
  text.insert(text.rfind('}'), ", \"timing\": {}");
  expectInputError([&] { pim::parseBackend(text, "u.json"); }, {"u.json", "timing", "upmem"});
}

TEST(BackendSchema, UnknownFamilyIsRefusedNamingTheFieldAndTheKnownFamilies) {
  std::string text = pim::builtinBackends().get("hbm-pim").toJson();
  text.replace(text.find("\"family\": \"hbm-pim\""), 19, "\"family\": \"hbm-xyz\"");
  expectInputError([&] { pim::parseBackend(text, "x.json"); },
                   {"x.json: family", "hbm-xyz", "attacc", "upmem"});
}

TEST(BackendSchema, DramPimFilesStillNeedEveryJedecTiming) {
  std::string text = pim::builtinBackends().get("hbm-pim").toJson();
  const auto at = text.find("\"tRFC\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "\"tXYZ\"");
  expectInputError([&] { pim::parseBackend(text, "y.json"); }, {"y.json", "timing.tXYZ", "unknown field"});
}

TEST(BackendJson, RoundTripEveryShippedBackend) {
  for (const Backend& b : pim::test::shippedBackends()) {
    Backend c = pim::parseBackend(b.toJson(), "roundtrip.json");
    ASSERT_EQ(c.parameters.size(), b.parameters.size()) << b.name;
    for (std::size_t i = 0; i < b.parameters.size(); ++i) {
      const auto &x = b.parameters[i], &y = c.parameters[i];
      EXPECT_EQ(x.key, y.key);
      EXPECT_EQ(x.value, y.value) << x.key;
      EXPECT_EQ(x.min, y.min) << x.key;
      EXPECT_EQ(x.max, y.max) << x.key;
      EXPECT_EQ(x.unit, y.unit) << x.key;
      EXPECT_EQ(x.integer, y.integer) << x.key;
      EXPECT_EQ(x.source, y.source) << x.key;
      EXPECT_EQ(x.description, y.description) << x.key;
    }
    EXPECT_EQ(c.name, b.name);
    EXPECT_EQ(c.description, b.description);
    EXPECT_EQ(c.sources, b.sources);
    EXPECT_EQ(c.core.ops, b.core.ops);
    EXPECT_EQ(c.core.dtypes, b.core.dtypes);
    EXPECT_EQ(c.group.units, b.group.units);
    EXPECT_EQ(c.system.host, b.system.host);
    EXPECT_EQ(c.hash(), b.hash()) << b.name;
    EXPECT_EQ(c.toJson(), b.toJson()) << b.name;
  }
}

TEST(BackendHash, StableAndSensitive) {
  Backend a = pim::loadBackendFile(backendPath("attacc"));
  Backend b = pim::loadBackendFile(backendPath("attacc"));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash().size(), 16u);
  std::string before = a.hash();
  a.setParameter("pim.MACAB_to_MACAB", 5);
  EXPECT_NE(a.hash(), before);
  a.setParameter("pim.MACAB_to_MACAB", 6);
  EXPECT_EQ(a.hash(), before);
  EXPECT_NE(pim::builtinBackends().get("hbm-pim").hash(), pim::builtinBackends().get("attacc").hash());
}

TEST(BackendSetParameter, UpdatesTypedViews) {
  Backend b = pim::loadBackendFile(backendPath("hbm2-pim"));
  b.setParameter("timing.tRCDRD", 15);
  EXPECT_EQ(b.timing.tRCDRD, 15);
  EXPECT_EQ(b.param("timing.tRCDRD")->value, 15);
  b.setParameter("system.devices", 1);
  EXPECT_EQ(b.totalGroups(), 16);
  b.setParameter("pim.WR_to_PRE", 30);
  EXPECT_DOUBLE_EQ(b.pimTiming.at("pim.WR_to_PRE"), 30);
}

TEST(BackendSetParameter, OutOfRangeThrowsAndLeavesUnchanged) {
  Backend b = pim::loadBackendFile(backendPath("hbm2-pim"));
  const std::string before = b.toJson();
  expectInputError([&] { b.setParameter("timing.tRCDRD", -1); },
                   {"hbm2-pim.json", "timing.tRCDRD", "outside"});
  expectInputError([&] { b.setParameter("timing.tRCDRD", 14.5); }, {"timing.tRCDRD", "integer"});
  expectInputError([&] { b.setParameter("group.broadcast", 2); }, {"group.broadcast"});
  // In range but breaks a cross-field rule: 8 cores x 2 banks must match the 16 banks of one pseudo-channel.
  expectInputError([&] { b.setParameter("core.coresPerGroup", 4); }, {"core.coresPerGroup", "16"});
  expectInputError([&] { b.setParameter("timing.tRC", 20); }, {"timing.tRC"});
  expectInputError([&] { b.setParameter("timing.nope", 1); }, {"timing.nope", "unknown"});
  EXPECT_EQ(b.toJson(), before);
  EXPECT_EQ(b.timing.tRCDRD, 14);
  EXPECT_EQ(b.core.coresPerGroup, 8);
}

TEST(BackendMalformed, BrokenJsonReportsPosition) {
  expectInputError([] { pim::parseBackend("{\n  \"name\": \"x\",\n  oops\n}", "broken.json"); },
                   {"broken.json", "line 3", "column"});
  expectInputError([] { pim::parseBackend("", "empty.json"); }, {"empty.json", "empty"});
  expectInputError([] { pim::parseBackend("[1, 2]", "array.json"); }, {"array.json", "object"});
}

TEST(BackendMalformed, MissingField) {
  expectInputError([] { parseEdited([](auto& j) { j["timing"].erase("tRCDRD"); }); },
                   {"bad.json", "timing.tRCDRD", "missing"});
  expectInputError([] { parseEdited([](auto& j) { j.erase("energy"); }); },
                   {"bad.json", "energy", "missing"});
  expectInputError([] { parseEdited([](auto& j) { j["core"].erase("ops"); }); },
                   {"bad.json", "core.ops", "missing"});
  expectInputError([] { parseEdited([](auto& j) { j["dram"]["rows"].erase("source"); }); },
                   {"bad.json", "dram.rows.source", "missing"});
}

TEST(BackendMalformed, WrongType) {
  expectInputError([] { parseEdited([](auto& j) { j["timing"]["tRP"]["value"] = "fourteen"; }); },
                   {"bad.json", "timing.tRP.value", "number"});
  expectInputError([] { parseEdited([](auto& j) { j["timing"]["tRP"] = 14; }); },
                   {"bad.json", "timing.tRP", "object"});
  expectInputError([] { parseEdited([](auto& j) {
                          j["core"]["dtypes"] = {"f16", "q4"};
                        }); },
                   {"bad.json", "core.dtypes[1]", "q4"});
  expectInputError([] { parseEdited([](auto& j) { j["name"] = 3; }); }, {"bad.json", "name", "string"});
}

TEST(BackendMalformed, OutOfRangeAndInconsistent) {
  expectInputError([] { parseEdited([](auto& j) { j["timing"]["tRP"]["value"] = 200000; }); },
                   {"bad.json", "timing.tRP", "outside"});
  expectInputError([] { parseEdited([](auto& j) { j["core"]["simdLanes"]["value"] = 16.5; }); },
                   {"bad.json", "core.simdLanes", "integer"});
  expectInputError(
      [] {
        parseEdited([](auto& j) {
          j["core"]["simdLanes"]["min"] = 32;
          j["core"]["simdLanes"]["max"] = 8;
        });
      },
      {"bad.json", "core.simdLanes", "min"});
  expectInputError([] { parseEdited([](auto& j) { j["core"]["banksPerCore"]["value"] = 1; }); },
                   {"bad.json", "core.coresPerGroup", "banks of one group"});
  expectInputError([] { parseEdited([](auto& j) { j["timing"]["tRC"]["value"] = 30; }); },
                   {"bad.json", "timing.tRC"});
  expectInputError([] { parseEdited([](auto& j) { j["extra"] = nlohmann::ordered_json::object(); }); },
                   {"bad.json", "extra", "unknown top-level section"});
  expectInputError([] { parseEdited([](auto& j) { j["timing"]["tXYZ"] = j["timing"]["tRP"]; }); },
                   {"bad.json", "timing.tXYZ", "unknown field"});
  expectInputError([] { parseEdited([](auto& j) { j["timing"]["tRP"]["source"] = "nowhere: table 1"; }); },
                   {"bad.json", "timing.tRP.source", "nowhere"});
}

TEST(BackendDataDir, EnvironmentOverride) {
  const char* old = std::getenv("PIMSCOPE_DATA");
  std::string saved = old ? old : "";
  setenv("PIMSCOPE_DATA", "/tmp/some-data", 1);
  EXPECT_EQ(pim::dataDir(), "/tmp/some-data");
  if (old)
    setenv("PIMSCOPE_DATA", saved.c_str(), 1);
  else
    unsetenv("PIMSCOPE_DATA");
  EXPECT_TRUE(std::filesystem::is_directory(pim::dataDir() + "/backends"));
}
