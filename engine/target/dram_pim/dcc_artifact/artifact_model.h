// SPDX-License-Identifier: Apache-2.0
// The DCC-artifact mode of the DRAM-PIM target (EvalOptions::model, dcc-artifact.md): a draft labelled as
// DCC's public artifact labels it. One HBM3 stack; the kernel seen in the artifact's dimensions; the draft in
// its (groups, cores, tile) form, rounded to powers of two without recomputing the tiles; the trace of the
// kernel's recipe in num_itr rounds, routed by the artifact's address map (so rounded drafts larger than the
// stack alias other banks, as there); simulated on the backend's HBM3 device with the artifact
// controller's barrier (every buffer of the channel drains), taken as a global step as its frontend does
// (every channel waits for the slowest to drain), and its all-bank MAC spacing.
#pragma once
#include <string>
#include <vector>

#include "engine/core/evaluation.h"
#include "engine/core/problem.h"
#include "engine/target/dram_pim/dcc_artifact/recipe.h"
#include "engine/target/target.h"
#include "sim/config.h"

namespace pim::dcc {

/// A problem as the artifact sees it: its recipe and dimensions for one stack.
struct ArtifactKernel {
  const Recipe* recipe = nullptr;
  std::vector<std::int64_t> dims;  // [batch, length] or [batch x heads per stack, head dim, sequence]
  std::vector<std::vector<std::string>> loopVars;  // PIMScope loop variables behind each dimension
};
/// Throws InputError naming why the artifact has no trace for `p` (family or kernel not covered).
ArtifactKernel artifactKernel(const Problem& p);

/// What the artifact runs for a tiling: the rounded tiling, its rounds and the trace as programs.
struct ArtifactTrace {
  Tiling rounded;  // powers of two (unless the vendor pattern), tiles unchanged; t[0].tile = rows per round
  std::int64_t rounds = 0;
  TraceSink sink;
  sim::Program program;
};
/// Throws InputError when not even one row of the draft fits a 16-MiB bank.
ArtifactTrace artifactTrace(const ArtifactKernel& k, const Tiling& t, bool inference);

/// The device the artifact's Ramulator fork models, from the backend's.
sim::DeviceConfig artifactDevice(sim::DeviceConfig backendDevice);

/// The artifact's form of a draft of `p`'s space (parts combined per artifact dimension).
Tiling tilingOfDraft(const Problem& p, const ArtifactKernel& k, const Draft& d);

/// The label of `t` (checked with checkedTiling first) under `o` (o.model a DCC mode).
Evaluation evaluateTiling(const Problem& p, const Tiling& t, const EvalOptions& o,
                          const sim::DeviceConfig& backendDevice);
/// The label of a PIMScope draft, via tilingOfDraft.
Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o,
                         const sim::DeviceConfig& backendDevice);
/// The artifact's vendor tiling of `p`, labelled.
Baseline vendorBaseline(const Problem& p, const EvalOptions& o, const sim::DeviceConfig& backendDevice);
/// For callers outside the target (the CLI): `p`'s backend device built here.
Evaluation evaluateTiling(const Problem& p, const Tiling& t, const EvalOptions& o);
/// Every draft the artifact's generator emits for `p`, in its order.
std::vector<Tiling> artifactDrafts(const Problem& p);

/// The artifact's commands for `t`: counts per command, then the programs' listing.
std::string listing(const Problem& p, const Tiling& t, const EvalOptions& o, std::size_t maxLines);

}  // namespace pim::dcc
