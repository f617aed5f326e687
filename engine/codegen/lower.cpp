// SPDX-License-Identifier: Apache-2.0
#include <unordered_map>

#include "engine/codegen/lowering.h"
#include "engine/codegen/rearrangement.h"
#include "engine/common/error.h"

namespace pim {

const std::vector<std::unique_ptr<ICodeGenerator>>& codeGenerators() {
  static const auto generators = [] {
    std::vector<std::unique_ptr<ICodeGenerator>> g;
    g.push_back(makeHbm2PimCodeGenerator());
    g.push_back(makeHbmPimCodeGenerator());
    g.push_back(makeAttaccCodeGenerator());
    g.push_back(makeGddr6AimCodeGenerator());
    return g;
  }();
  return generators;
}

const ICodeGenerator* codeGeneratorFor(const Backend& b) {
  for (const auto& g : codeGenerators()) {
    if (g->family() == b.family) return g.get();
  }
  return nullptr;
}

sim::Program lowerDraft(const LoweringInput& in) {
  const Backend& b = in.problem.backend();
  const ICodeGenerator* gen = codeGeneratorFor(b);
  if (!gen) {
    throw InputError("backend '" + b.name + "' (family " + b.family +
                     "): no DRAM command program generator; its cores are not driven by DRAM commands");
  }
  if (const std::string why = gen->unsupportedReason(in.problem.kernel()); !why.empty()) {
    throw InputError(in.problem.kernel().name + " cannot run on " + b.name + ": " + why);
  }
  sim::Program prog;
  std::unordered_map<std::uint64_t, int> byHash;
  const Kernel& k = in.problem.kernel();
  int idleProgram = -1;  // every idle group runs the same program (host-layout traffic only)
  for (int g = 0; g < b.totalGroups(); ++g) {
    const bool live = g < in.mapping.groupsUsed;
    if (!live && idleProgram >= 0) {
      prog.channelMap.push_back(idleProgram);
      continue;
    }
    // Idle groups still hold their share of the host layout, so they take part in staged rearrangement.
    const BankRegions r = bankRegions(k, in.mapping, b, in.device, live ? g : 0);
    sim::ProgramBuilder pb;
    const bool staged = in.options.stagedRearrangement && !in.options.computeOnly;
    if (staged) emitStagedInput(in, g, r, pb);
    pb.setPhase(sim::Phase::Compute);
    if (live) gen->emitCompute(in, g, pb);
    if (staged) emitStagedOutput(in, g, r, pb);
    sim::ChannelProgram cp = pb.take();
    const auto [it, fresh] = byHash.emplace(cp.hash(), static_cast<int>(prog.programs.size()));
    if (fresh) prog.programs.push_back(std::move(cp));
    prog.channelMap.push_back(it->second);
    if (!live) idleProgram = it->second;
  }
  return prog;
}

}  // namespace pim
