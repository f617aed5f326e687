// SPDX-License-Identifier: Apache-2.0
// Operand residency (engine/kernel/residency.h): declared defaults, overrides and their errors, the store
// key, and what a call and a preload move, counted burst by burst from the tensors' sizes.
#include <gtest/gtest.h>

#include "tests/sim_test_util.h"
#include "tests/test_util.h"

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/program.h"

namespace pim {
namespace {

using test::problem;

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::int64_t hostBursts(const sim::Program& p, sim::Op op, sim::Phase phase) {
  return sim::test::issued(p, op, phase);  // one burst each
}

std::int64_t commandsIn(const sim::Program& p, sim::Phase phase) {
  std::int64_t n = 0;
  for (const auto& prog : p.programs)
    for (const sim::Block& b : prog.blocks)
      for (const sim::Command& c : b.cmds) n += c.phase == phase;
  return n;
}

TEST(Residency, TheLibraryDeclaresWeightsAndTheKvCacheResident) {
  auto names = [](const char* kernel) {
    const Kernel k = KernelLibrary::builtin().get(kernel);
    return residentNames(k, Residency::declared(k));
  };
  EXPECT_EQ(names("gemv"), "W");
  EXPECT_EQ(names("mmtv"), "A");
  EXPECT_EQ(names("attn"), "K,V");
  for (const char* streamed : {"red", "va", "mul", "relu", "geva", "ttv", "gemm"})
    EXPECT_EQ(names(streamed), "");
}

TEST(Residency, OverridesAreCheckedByName) {
  const Kernel k = KernelLibrary::builtin().get("attn");
  const Residency d = Residency::declared(k);
  EXPECT_EQ(residentNames(k, overrideResidency(k, d, "q", "K")), "q,V");
  EXPECT_EQ(residentNames(k, overrideResidency(k, d, "", " K , V ")), "");
  EXPECT_NE(
      errorOf([&] { overrideResidency(k, d, "W", ""); }).find("has no tensor 'W' (tensors: q, K, V, o)"),
      std::string::npos);
  EXPECT_NE(errorOf([&] { overrideResidency(k, d, "s", ""); }).find("'s' is a temporary"), std::string::npos);
  EXPECT_NE(errorOf([&] { overrideResidency(k, d, "K", "K"); }).find("both resident and streamed"),
            std::string::npos);
}

TEST(Residency, TheDslDeclaresItWithoutChangingTheComputation) {
  const std::string plain =
      "kernel f(n = 8)\n  input x: f16[n]\n  output y: f16[n]\n  for i < n: y[i] = x[i]\nend\n";
  std::string resident = plain;
  resident.replace(resident.find("f16[n]\n"), 7, "f16[n] resident\n");
  const Kernel a = parseKernel(plain, "a.pim"), b = parseKernel(resident, "b.pim");
  EXPECT_FALSE(a.tensors[0].resident);
  EXPECT_TRUE(b.tensors[0].resident);
  EXPECT_TRUE(sameComputation(a, b));
  EXPECT_EQ(computationHash(a), computationHash(b));
  const std::string temp =
      "kernel f(n = 8)\n  input x: f16[n]\n  temp t: f16[n] resident\n  output y: f16[n]\n"
      "  for i < n: t[i] = x[i]\n  for i < n: y[i] = t[i]\nend\n";
  EXPECT_NE(errorOf([&] { parseKernel(temp, "t.pim"); }).find("t.pim:3:"), std::string::npos);
}

TEST(Residency, StoredResultsAreKeyedByIt) {
  EXPECT_EQ(problem("hbm-pim", "gemv", "out=64,in=256")->storeKey(), "b=1,out=64,in=256;resident=W");
  EXPECT_EQ(problem("hbm-pim", "gemv", "out=64,in=256", "")->storeKey(), "b=1,out=64,in=256");
  EXPECT_EQ(problem("hbm-pim", "red", "n=64")->storeKey(), "b=1,n=64");  // as before residency existed
  EXPECT_EQ(problem("hbm-pim", "gemv", "out=64,in=256")->title(),
            "gemv[b=1,out=64,in=256] on hbm-pim (W resident)");
}

// GEMV 64 x 256 in f16: W is 32 KiB = 1,024 bursts of 32 B, x is 512 B = 16 bursts, y 128 B = 4 bursts. A
// call with W resident reads only x from the host layout; the preload reads W once and nothing else;
// streamed, a call reads both.
TEST(Residency, ACallMovesTheStreamedTensorsAndThePreloadTheResidentOnes) {
  const auto resident = problem("hbm-pim", "gemv", "out=64,in=256");
  const auto streamed = problem("hbm-pim", "gemv", "out=64,in=256", "");
  const Draft d = resident->space().draft(resident->space().size() / 3);
  ASSERT_EQ(streamed->space().draft(d.id).parts, d.parts);
  using sim::Op;
  using sim::Phase;
  const sim::Program call = draftProgram(*resident, d), all = draftProgram(*streamed, d);
  EXPECT_EQ(hostBursts(call, Op::HOST_RD, Phase::InputRearrangement), 16);
  EXPECT_EQ(hostBursts(all, Op::HOST_RD, Phase::InputRearrangement), 16 + 1024);
  EXPECT_EQ(hostBursts(call, Op::HOST_WR, Phase::OutputRearrangement), 4);
  EXPECT_LT(hostBursts(call, Op::HOST_WR, Phase::InputRearrangement),
            hostBursts(all, Op::HOST_WR, Phase::InputRearrangement));
  const sim::Program preload = preloadProgram(*resident, d);
  EXPECT_EQ(hostBursts(preload, Op::HOST_RD, Phase::InputRearrangement), 1024);
  EXPECT_EQ(commandsIn(preload, Phase::Compute), 0);
  EXPECT_EQ(commandsIn(preload, Phase::OutputRearrangement), 0);
  // The PIM side of the preload writes W's tiles, what the streamed call writes beyond the resident call.
  EXPECT_EQ(hostBursts(preload, Op::HOST_WR, Phase::InputRearrangement),
            hostBursts(all, Op::HOST_WR, Phase::InputRearrangement) -
                hostBursts(call, Op::HOST_WR, Phase::InputRearrangement));

  EvalOptions o;
  o.preload = true;
  const Evaluation e = evaluateDraft(*resident, d, o), s = evaluateDraft(*streamed, d, o);
  ASSERT_TRUE(e.preloadCycles.has_value());
  EXPECT_GT(*e.preloadCycles, 0);
  EXPECT_FALSE(s.preloadCycles.has_value());  // nothing to place
  EXPECT_LT(e.cycles[0], s.cycles[0]);
  EXPECT_FALSE(evaluateDraft(*resident, d).preloadCycles.has_value());  // searches do not ask for it
}

// The vendor baselines follow the draft's residency: the HBM2-PIM library's GEMV loads no weights per call
// when W is resident, and times that load as the preload instead.
TEST(Residency, TheVendorBaselineUsesTheSameResidency) {
  EvalOptions o;
  o.preload = true;
  const Baseline r = vendorBaseline(*problem("hbm2-pim", "gemv", "out=512,in=512"), o);
  const Baseline s = vendorBaseline(*problem("hbm2-pim", "gemv", "out=512,in=512", ""), o);
  ASSERT_TRUE(r.available && s.available);
  EXPECT_EQ(r.eval.cycles[0], 0);
  EXPECT_GT(s.eval.cycles[0], 0);
  EXPECT_EQ(r.eval.cycles[1], s.eval.cycles[1]);
  ASSERT_TRUE(r.eval.preloadCycles.has_value());
  EXPECT_EQ(*r.eval.preloadCycles, s.eval.cycles[0]);
}

// AttAcc's vendor attention brings its own compute and takes only its placement (the host's copies and the
// preload) from the vendor tiling's draft. The draft's compute phase used to be simulated too: half the cost
// of the call, and its reads and writes were added to the vendor's energy.
TEST(Residency, AttaccVendorAttentionTakesOnlyTheCopiesFromItsDraft) {
  const auto p = problem("attacc", "attn", "b=1,h=8,l=256,d=128", "");  // all streamed: every copy moves
  EvalOptions o;
  o.preload = true;
  const Baseline v = vendorBaseline(*p, o);
  ASSERT_TRUE(v.available && v.draft);
  EvalOptions copiesOnly = o;
  copiesOnly.optimizer.rearrangementOnly = true;
  const Evaluation copies = evaluateDraft(*p, *v.draft, copiesOnly);
  const Evaluation full = evaluateDraft(*p, *v.draft, o);
  EXPECT_EQ(copies.cycles[1], 0);  // no compute phase lowered
  EXPECT_GT(copies.cycles[0], 0);
  EXPECT_GT(copies.cycles[2], 0);
  EXPECT_EQ(copies.cycles[0], full.cycles[0]);  // the input copies run before any compute
  EXPECT_LT(copies.energy.rdWr_pJ, full.energy.rdWr_pJ);
  EXPECT_EQ(v.eval.cycles[0], copies.cycles[0]);
  EXPECT_EQ(v.eval.cycles[2], copies.cycles[2]);
  // The vendor's energy: its own program's, plus the copies' reads, writes and host I/O (no draft compute).
  EXPECT_DOUBLE_EQ(v.eval.energyPj,
                   v.eval.energy.total_pJ() + copies.energy.rdWr_pJ + copies.energy.hostIo_pJ);
}

}  // namespace
}  // namespace pim
