// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/layer_candidates.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/crossbar/partition.h"
#include "engine/crossbar/replication.h"
#include "engine/hw/backend.h"
#include "engine/target/conv_recognition.h"
#include "engine/target/crossbar/crossbar_backend.h"
#include "engine/target/list_space.h"

namespace pim {
namespace {

namespace cb = crossbar;
namespace cm = convmap;
using nlohmann::json;

json node(int index, const std::string& name, const char* op, std::vector<std::int64_t> in,
          std::vector<std::int64_t> out) {
  json n = {{"index", index},    {"name", name},
            {"operation", op},   {"input_dim_num", in.size()},
            {"input_dim", in},   {"output_dim_num", out.size()},
            {"output_dim", out}, {"bitwidth", 16}};
  const bool input = index == 0;
  const std::string other = input ? "layer" : "data";
  n[input ? "provider" : "consumer"] = json::array();
  n[input ? "provider_index" : "consumer_index"] = json::array();
  n[input ? "provider_num" : "consumer_num"] = 0;
  n[input ? "consumer" : "provider"] = {other};
  n[input ? "consumer_index" : "provider_index"] = {input ? 1 : 0};
  n[input ? "consumer_num" : "provider_num"] = 1;
  return n;
}

/// The layer as PIMCOMP-NN's node list: an input and one CONV (the input already padded, as the conv model
/// lays it out) or FC (R = S = P = Q = 1), no bias, no activation, batch 1. Parsed back, so the network holds
/// every invariant a loaded file does.
Network layerNetwork(const cm::ConvLayer& l, const std::string& origin) {
  const std::int64_t C = l.bound[cm::C], K = l.bound[cm::K];
  const json flags = {{"with_bn", 0}, {"with_act", 0}, {"act_type", -1}};
  json layer;
  json input;
  const bool fc = l.bound[cm::R] * l.bound[cm::S] * l.bound[cm::P] * l.bound[cm::Q] == 1;
  if (fc) {
    input = node(0, "data", "OP_INPUT", {1, C}, {1, C});
    layer = node(1, "layer", "OP_FC", {1, C}, {1, K});
    layer["param"] = {{"num_input", C}, {"num_output", K}, {"with_bias", 0}};
  } else {
    const std::vector<std::int64_t> in = {1, C, l.inputHeight(), l.inputWidth()};
    input = node(0, "data", "OP_INPUT", in, in);
    layer = node(1, "layer", "OP_CONV", in, {1, K, l.bound[cm::Q], l.bound[cm::P]});
    layer["param"] = {{"kernel_h", l.bound[cm::S]},
                      {"kernel_w", l.bound[cm::R]},
                      {"stride_h", l.strideH},
                      {"stride_w", l.strideW},
                      {"pad_h0", 0},
                      {"pad_h1", 0},
                      {"pad_w0", 0},
                      {"pad_w1", 0},
                      {"dilation_h", l.dilH},
                      {"dilation_w", l.dilW},
                      {"group", 1},
                      {"input_channel", C},
                      {"output_channel", K},
                      {"with_bias", 0}};
  }
  layer.update(flags);
  return parseNetworkJson(json{{"node_list", {input, layer}}}.dump(), origin);
}

std::string_view modeText(cb::PipelineMode m) { return m == cb::PipelineMode::Ht ? "HT" : "LL"; }

/// The replicas a rule's plan gives each layer (per origin replica: AGP parts are not counted apart).
std::vector<std::int64_t> planReplicas(const Network& net, const cb::Accelerator& acc,
                                       const cb::CompileOptions& o) {
  const cb::CompilePlan plan = cb::compilePlan(net, acc, o);
  std::vector<std::int64_t> replicas;
  for (std::size_t i = 0; i < plan.layers.size(); ++i)
    replicas.push_back(plan.replicas[i] / plan.layers[i].agp);
  return replicas;
}

/// The unfoldings a candidate may ask for: of one CONV layer, im2col and every Table IV format the schedules
/// run on it (the others are left out with why); of a network, im2col (PIMCOMP-NN's) and auto (the greedy
/// per layer).
std::vector<std::string> unfoldingsOf(const Network& net, const cb::Accelerator& acc, bool wholeNetwork,
                                      std::vector<std::string>& leftOut) {
  std::vector<std::string> unfoldings = {"im2col"};
  if (wholeNetwork) {
    unfoldings.emplace_back("auto");
    return unfoldings;
  }
  const NetworkNode& layer = net.nodes[1];
  if (layer.op != NetworkOp::Conv) return unfoldings;
  for (const cb::Unfolding& u : cb::kUnfoldings) {
    if (u == cb::kIm2col) continue;
    if (cb::scheduled(u, cb::convGeometry(layer), acc))
      unfoldings.emplace_back(u.name);
    else
      leftOut.push_back(std::string(u.name) + ": a band of its weight matrix is wider than a core");
  }
  return unfoldings;
}

/// Whether the greedy choice per layer (`auto`) keeps im2col everywhere in `mode`: then auto's compiles are
/// im2col's, listed once.
bool autoIsIm2col(const Network& net, const cb::Accelerator& acc, cb::PipelineMode mode) {
  const auto layers = cb::partitionNetwork(net, acc, {.all = "auto", .perLayer = {}}, mode);
  return std::all_of(layers.begin(), layers.end(),
                     [](const cb::LayerPartition& l) { return l.unfolding == cb::kIm2col; });
}

}  // namespace

CrossbarLayerContext::CrossbarLayerContext(const Problem& p) : m_problem(p) {
  try {
    if (p.network()) {
      m_network = *p.network();
    } else {
      const auto pattern = recogniseConv(p.kernel());
      if (const auto* why = std::get_if<std::string>(&pattern)) {
        m_reasons.push_back(notOneLayer(*why, p.backend()));
        return;
      }
      const cm::ConvLayer layer = convLayerOf(p.kernel(), std::get<ConvPattern>(pattern), p.shape());
      if (layer.bound[cm::N] != 1)
        throw InputError("kernel '" + p.kernel().name +
                         "': the crossbar compiler runs one sample at a time " +
                         "(batch 1); this layer has N = " + std::to_string(layer.bound[cm::N]));
      m_network = layerNetwork(layer, "kernel '" + p.kernel().name + "' as a one-layer network");
    }
    listChoices(acceleratorOf(p.backend()));
  } catch (const InputError& e) {
    m_network.reset();
    m_choices.clear();
    m_reasons.push_back(e.what());
  }
}

void CrossbarLayerContext::listChoices(const cb::Accelerator& acc) {
  const bool wholeNetwork = m_problem.network() != nullptr;
  const std::vector<std::string> unfoldings = unfoldingsOf(*m_network, acc, wholeNetwork, m_leftOut);
  std::string lastRefusal;
  for (const cb::PipelineMode mode : {cb::PipelineMode::Ht, cb::PipelineMode::Ll})
    for (const std::string& unfolding : unfoldings) {
      if (unfolding == "auto" && autoIsIm2col(*m_network, acc, mode)) {
        m_leftOut.push_back(std::string(modeText(mode)) +
                            " · auto: the greedy keeps im2col in every layer, so its compiles are im2col's");
        continue;
      }
      const std::size_t first = m_choices.size();
      for (const std::string& method : cb::replicationMethodNames()) {
        cb::CompileOptions o{
            .mode = mode, .replication = method, .unfolding = {.all = unfolding, .perLayer = {}}};
        std::vector<std::int64_t> replicas;
        try {
          replicas = planReplicas(*m_network, acc, o);
        } catch (const InputError& e) {  // this rule or format cannot plan the layer; the others may
          lastRefusal = e.what();
          m_leftOut.push_back(std::string(modeText(mode)) + " · " + unfolding + " · " + method + ": " +
                              lastRefusal);
          continue;
        }
        bool known = false;
        for (std::size_t i = first; i < m_choices.size(); ++i)
          if (m_choices[i].replicas == replicas) {
            m_choices[i].methods.push_back(method);
            known = true;
          }
        if (!known) m_choices.push_back({o, {method}, std::move(replicas)});
      }
    }
  if (m_choices.empty()) throw InputError(lastRefusal);
  // A network's genetic searches come last (seconds each, where a rule's plan takes milliseconds), so that a
  // run with a budget of compiles profiles the rules first; each starts from the rules' plans.
  if (wholeNetwork)
    for (const cb::PipelineMode mode : {cb::PipelineMode::Ht, cb::PipelineMode::Ll})
      for (const std::string& unfolding : unfoldings)
        if (unfolding != "auto" || !autoIsIm2col(*m_network, acc, mode))
          m_choices.push_back(
              {{.mode = mode, .replication = kGaMethod, .unfolding = {.all = unfolding, .perLayer = {}}},
               {kGaMethod},
               {}});
}

const Network& CrossbarLayerContext::network() const {
  if (!m_network) throw InputError(m_reasons.empty() ? "no layer" : m_reasons.front());
  return *m_network;
}

const LayerCompileChoice& CrossbarLayerContext::choice(std::uint64_t id) const {
  network();
  if (id >= m_choices.size())
    throw InputError("candidate " + std::to_string(id) + ": out of range (the compiles of '" +
                     m_problem.subject() + "' on " + m_problem.backend().name + " have ids 0.." +
                     std::to_string(m_choices.size() - 1) + ")");
  return m_choices[id];
}

NetworkCompileResult CrossbarLayerContext::compile(std::uint64_t id, cb::TimingMode timing,
                                                   xbar::IProgramSink* alsoTo,
                                                   const std::atomic<bool>* cancel) const {
  NetworkCompileRequest r;
  r.compile = choice(id).options;
  r.timing = timing;
  r.alsoTo = alsoTo;
  r.cancel = cancel;
  const bool search = r.compile.replication == kGaMethod;
  const std::pair<std::uint64_t, int> key{id, static_cast<int>(timing)};
  const NetworkCompileResult* searched = nullptr;
  if (search) {
    std::lock_guard lock(m_searchedMutex);
    if (const auto it = m_searched.find(key); it != m_searched.end()) searched = &it->second;  // never erased
  }
  if (searched) r.plan = searched->plan;
  NetworkCompileResult result = compileNetwork(m_problem.backend(), network(), r);
  // A stopped compile is not this candidate's: its figures are of a search cut short.
  if (result.cancelled || result.gaCancelled)
    throw InputError(choiceText(choice(id)) + ": cancelled before the compile finished");
  if (searched) {  // the search's own account, as its first compile gave it
    result.gaHistory = searched->gaHistory;
    result.gaSeeds = searched->gaSeeds;
    result.gaFinalists = searched->gaFinalists;
    result.gaChoice = searched->gaChoice;
    result.planSeconds = searched->planSeconds;
  } else if (search) {
    std::lock_guard lock(m_searchedMutex);
    m_searched.emplace(key, result);
  }
  return result;
}

const CrossbarLayerContext& crossbarLayerContext(const Problem& p) {
  return static_cast<const CrossbarLayerContext&>(
      p.targetContext([&] { return std::make_unique<CrossbarLayerContext>(p); }));
}

std::string notOneLayer(const std::string& why, const Backend& b) {
  return why + "; whole networks compile with `pimscope-cli compile --backend " + b.name +
         " --network resnet18` (or explore as a network picked in the Kernel box, `explore --network`)";
}

std::string choiceText(const LayerCompileChoice& c) {
  std::string methods;
  for (const std::string& m : c.methods) methods += (methods.empty() ? "" : ", ") + m;
  const std::string head =
      std::string(modeText(c.options.mode)) + " · " + c.options.unfolding.all + " · " + methods;
  if (c.replicas.empty()) return head;  // a genetic search: its replicas are known once it has run
  const std::int64_t total = c.totalReplicas();
  return head + " (" + withThousands(total) + (total == 1 ? " replica)" : " replicas)");
}

std::unique_ptr<ICandidateSpace> makeLayerCompileSpace(const Problem& p, const PruneRuleRegistry& rules) {
  const CrossbarLayerContext& c = crossbarLayerContext(p);
  return makeListSpace(
      {.size = [&c] { return static_cast<std::uint64_t>(c.choices().size()); },
       .label = [&c](std::uint64_t id) { return choiceText(c.choice(id)); },
       .labelTitle = "Mode · unfolding · replication",
       .reason = "a compile (every mode, unfolding the schedules run and distinct replication, then for a "
                 "network the genetic search)"},
      rules);
}

}  // namespace pim
