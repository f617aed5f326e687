// SPDX-License-Identifier: Apache-2.0
// The crossbar family in the explorer (docs/crossbar.md "Networks and layers in the explorer"): a whole
// network (Problem::network), or a conv or FC kernel (conv_recognition.h) compiled as a one-layer network,
// batch 1, every weight in the arrays. Its candidates are the compiler's choices: pipeline mode (HT, LL) x
// weight unfolding (of a layer, the formats the schedules run on it; of a network, im2col and auto) x
// replication rule, then, for a network, the genetic search per mode and unfolding; each compiled and
// profiled as `pimscope-cli compile` does, in the run's timing mode (SimSettings::crossbarTiming). Rules
// that give the same replicas make one candidate that names them all.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/candidate_space.h"
#include "engine/core/problem.h"
#include "engine/crossbar/compile.h"
#include "engine/kernel/network.h"
#include "engine/target/crossbar/network_compile.h"

namespace pim {

/// One candidate: what to compile, and every replication rule that gives its plan.
struct LayerCompileChoice {
  crossbar::CompileOptions options;  // options.replication: the first of `methods`
  std::vector<std::string> methods;
  /// Per layer, of the plan (per origin replica: AGP parts are not counted apart); empty for a genetic
  /// search, whose replicas are known only once it has run.
  std::vector<std::int64_t> replicas;
  std::int64_t totalReplicas() const {
    std::int64_t n = 0;
    for (std::int64_t r : replicas) n += r;
    return n;
  }
};

/// The target's per-problem state (Problem::targetContext): the network (or the layer as one), the candidate
/// list, or every reason there is none.
class CrossbarLayerContext final : public ITargetContext {
 public:
  explicit CrossbarLayerContext(const Problem& p);
  const std::vector<std::string>& reasons() const { return m_reasons; }
  /// The network, or the layer as a one-layer network; InputError with the reasons when there is none.
  const Network& network() const;
  const std::vector<LayerCompileChoice>& choices() const { return m_choices; }
  /// Candidate `id`; InputError naming the valid range.
  const LayerCompileChoice& choice(std::uint64_t id) const;
  /// What is left out, each with why: formats of Table IV the schedules cannot run on the layer, and any
  /// mode, format and rule that cannot plan it (none can: the context has the last one's reason).
  const std::vector<std::string>& leftOut() const { return m_leftOut; }
  /// Compiles and profiles candidate `id` in `timing`, also streaming its program into `alsoTo`. Throws
  /// InputError when `cancel` stopped it (a genetic search polls it per individual).
  NetworkCompileResult compile(std::uint64_t id, crossbar::TimingMode timing,
                               xbar::IProgramSink* alsoTo = nullptr,
                               const std::atomic<bool>* cancel = nullptr) const;

 private:
  void listChoices(const crossbar::Accelerator& acc);
  const Problem& m_problem;
  /// A genetic search's first compile of a candidate in a timing, whose plan the later ones (the details
  /// pane's analysis, a listing) reuse instead of searching again: the search is deterministic.
  mutable std::mutex m_searchedMutex;
  mutable std::map<std::pair<std::uint64_t, int>, NetworkCompileResult> m_searched;
  std::optional<Network> m_network;
  std::vector<std::string> m_reasons, m_leftOut;
  std::vector<LayerCompileChoice> m_choices;
};

const CrossbarLayerContext& crossbarLayerContext(const Problem& p);

/// `why` a kernel is not one layer, with the command that compiles whole networks on `b`.
std::string notOneLayer(const std::string& why, const Backend& b);

/// "HT · IK,OK,1 · balance, uniform (4 replicas)": the candidates' label.
std::string choiceText(const LayerCompileChoice& c);

/// The list as a candidate space: ids index it, every candidate is kept, DCC's rules are not in force.
std::unique_ptr<ICandidateSpace> makeLayerCompileSpace(const Problem& p, const PruneRuleRegistry& rules);

}  // namespace pim
