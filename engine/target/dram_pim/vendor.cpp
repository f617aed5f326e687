// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/vendor.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/target/dram_pim/bank_statistics.h"

namespace pim {
namespace {

// Part index of the dimension set whose representative loop runs over kernel dimension `name`.
int setOverDim(const Problem& p, const char* name) {
  const int d = p.kernel().dimIndex(name);
  if (d < 0) return -1;
  const auto& sets = p.space().sets().sets;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const int var = sets[s].candidates.front().var;
    if (p.kernel().loops[var].upper == AffineExpr::ofVar(d)) return static_cast<int>(s);
  }
  return -1;
}

bool isElementwise2d(const Kernel& k) {
  return k.dims.size() == 2 && k.dimIndex("b") >= 0 && k.dimIndex("n") >= 0;
}

}  // namespace

std::optional<Draft> vendorTilingDraft(const Problem& p) {
  const Kernel& k = p.kernel();
  const std::string lib = libraryKernelOf(k);
  const int G = p.space().resources().groups, C = p.space().resources().coresPerGroup;
  std::vector<PartChoice> parts(p.space().partCount(), PartChoice{1, 1, 0});
  auto give = [&](int set, int groups, int cores) {
    if (set < 0) return false;
    parts[set] = {std::max(1, groups), std::max(1, cores), 0};
    return true;
  };
  if (isElementwise2d(k)) {
    // [(batch, 1), (G/batch, all cores)]: batches over channels, the vector over every bank of a channel.
    const int gb = static_cast<int>(std::min<std::int64_t>(p.dimSize("b"), G));
    if (!give(setOverDim(p, "b"), gb, 1) || !give(setOverDim(p, "n"), G / gb, C)) return std::nullopt;
  } else if (lib == "gemv") {
    // A weight GEMV has no heads: AttAcc's layout spreads its rows over the channels and the 16 bank groups
    // of each, and the input dimension over the 4 banks of a bank group.
    if (!give(setOverDim(p, "b"), 1, 1) || !give(setOverDim(p, "out"), G, std::max(1, std::min(16, C / 4))) ||
        !give(setOverDim(p, "in"), 1, std::min(4, C))) {
      return std::nullopt;
    }
  } else if (lib == "mmtv" || lib == "attn" || lib == "attn_gqa") {
    // [(G, 1), (1, 4), (1, 16)]: heads (batch x heads) over channels, the head dimension over 4 banks, the
    // sequence over 16 bank groups. Grouped-query attention lays out its K/V heads (of every sequence:
    // attn_gqa's h) so; the query heads of a group then run one after another over the same K and V (their
    // part stays (1, 1)).
    const char* heads = lib == "mmtv" ? "i" : "h";
    const char* headDim = lib == "mmtv" ? "k" : "d";
    const char* seq = lib == "mmtv" ? "j" : "l";
    int hg = G;
    if (lib != "mmtv") {
      hg = static_cast<int>(std::min<std::int64_t>(p.dimSize("h"), G));
      if (lib == "attn" && !give(setOverDim(p, "b"), G / hg, 1)) return std::nullopt;
    }
    if (!give(setOverDim(p, heads), hg, 1) || !give(setOverDim(p, headDim), 1, std::min(4, C)) ||
        !give(setOverDim(p, seq), 1, std::max(1, std::min(16, C / 4)))) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  try {
    return p.space().draft(p.space().idOf(parts));
  } catch (const InputError&) {
    return std::nullopt;
  }
}

Baseline vendorTilingBaseline(const ITarget& self, const Problem& p, const EvalOptions& o,
                              const sim::DeviceConfig&) {
  Baseline v;
  v.name = "vendor";
  if (const auto why = self.check(p); !why.empty()) {
    v.reason = why.front();
    return v;
  }
  v.draft = vendorTilingDraft(p);
  if (!v.draft) {
    v.reason = "no vendor tiling for " + p.kernel().name +
               " (dcc-backends.md covers 2-D [batch, length] and 3-D "
               "[heads, head dim, sequence] kernels)";
    return v;
  }
  v.available = true;
  v.summary = "AttAcc's data distribution (dcc-backends.md): " + p.space().label(*v.draft);
  v.eval = self.evaluate(p, *v.draft, o);
  return v;
}

Evaluation vendorEvaluation(const sim::Result& r, double tCKns, const Backend& backend) {
  Evaluation e;
  for (int ph = 0; ph < 3; ++ph) e.cycles[ph] = r.phaseCycles[ph];
  e.totalCycles = r.totalCycles;
  e.tCKns = tCKns;
  e.timeNs = static_cast<double>(r.totalCycles) * tCKns;
  e.energy = r.energy;
  e.energyPj = r.energy.total_pJ();
  e.unitStats = bankStatistics(r.banks, bankGeometry(backend));
  e.commandBusUtilisation = r.commandBusUtilisation;
  e.commands = r.commandsIssued;
  for (const auto& b : r.banks) e.unitsUsed += (b.pimOps > 0);
  return e;
}

}  // namespace pim
