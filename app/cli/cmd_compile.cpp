// SPDX-License-Identifier: Apache-2.0
// `networks` and `compile`: whole networks on crossbar accelerators (issue 19, docs/crossbar.md).
#include <cstdio>
#include <iostream>
#include <optional>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/crossbar/instruction_dump.h"
#include "engine/crossbar/replication.h"
#include "engine/kernel/network.h"
#include "engine/kernel/onnx_network.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"

namespace pim::cli {
namespace {

struct NetworkSummary {
  std::int64_t convs = 0, fcs = 0, weights = 0, macs = 0;
};

NetworkSummary summarise(const Network& net) {
  NetworkSummary s;
  for (const NetworkNode& n : net.nodes) {
    if (n.op == NetworkOp::Conv) ++s.convs;
    if (n.op == NetworkOp::Fc) ++s.fcs;
  }
  for (const ConvLayerShape& l : convLayers(net)) {
    s.weights += l.R * l.S * (l.C / l.group) * l.K;
    s.macs += convLayerMacs(l);
  }
  return s;
}

std::string dims(const std::vector<std::int64_t>& d) {
  std::string out;
  for (auto v : d) out += (out.empty() ? "" : "x") + std::to_string(v);
  return out;
}

void registerNetworks(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("networks", "list the shipped networks (compile --network, map --network)");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"network", "nodes", "CONV", "FC", "weights", "MACs", "input (NCHW)"});
    for (const std::string& name : builtinNetworkNames()) {
      const std::string path = builtinNetworkPath(name);
      const Network net = loadNetworkFile(path);
      const NetworkSummary s = summarise(net);
      const std::string input = net.nodes.empty() ? "" : dims(net.nodes.front().output_dim);
      t.add({name, std::to_string(net.nodes.size()), std::to_string(s.convs), std::to_string(s.fcs),
             grouped(static_cast<std::uint64_t>(s.weights)), grouped(static_cast<std::uint64_t>(s.macs)),
             input});
      out.push_back(
          {{"name", name},
           {"nodes", net.nodes.size()},
           {"conv", s.convs},
           {"fc", s.fcs},
           {"weights", s.weights},
           {"macs", s.macs},
           {"input_dim", net.nodes.empty() ? std::vector<std::int64_t>{} : net.nodes.front().output_dim},
           {"file", path}});
    }
    if (*json) {
      printJson(out);
    } else {
      std::cout << t.str();
    }
  });
}

struct CompileArgs {
  std::string backend, network, model, mode = "ht", replication = "balance", timing = "pimcomp-nn";
  std::string unfolding = "im2col", dump, gaFitness = "fast";
  int gaPopulation = 200, gaIterations = 100;
  std::uint64_t seed = 1;
  unsigned threads = 0;
  bool json = false;
  WhatIfOptions whatIf;
};

crossbar::PipelineMode modeOption(const std::string& s) {
  if (s == "ht") return crossbar::PipelineMode::Ht;
  if (s == "ll") return crossbar::PipelineMode::Ll;
  throw InputError("--mode: '" + s + "' is not a mode (ht: batch pipeline, ll: element pipeline)");
}

/// The network --network names (a shipped one) or --model reads (a node-list .json file).
Network networkOf(const CompileArgs& a) {
  if (a.network.empty() == a.model.empty())
    throw InputError("compile: give one of --network NAME (see `pimscope-cli networks`) or --model FILE");
  return *resolveNetwork(a.network, a.model);
}

std::string nsText(std::optional<double> v) {
  if (!v) return "-";
  return grouped(static_cast<std::uint64_t>(std::llround(*v))) + " ns";
}

std::string fixed1(double v) { return withDecimals(v, 1); }
std::string fixed3(double v) { return withDecimals(v, 3); }

nlohmann::json optionalJson(std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json gaJson(const NetworkCompileResult& r) {
  nlohmann::json seeds = nlohmann::json::object(), finalists = nlohmann::json::array();
  for (const auto& [name, fitness] : r.gaSeeds) seeds[name] = fitness;
  for (const auto& f : r.gaFinalists)
    finalists.push_back({{"time_ns", f.timeNs}, {"energy_nj", f.energyNj}, {"fitness", f.fitness}});
  return {{"best_fitness_per_iteration", r.gaHistory},
          {"seeds", seeds},
          {"cancelled", r.gaCancelled},
          {"choice", r.gaChoice},
          {"finalists", finalists}};
}

/// Per core: its times, MVMs, crossbars and the layers it holds.
nlohmann::json coresJson(const NetworkCompileResult& r) {
  nlohmann::json cores = nlohmann::json::array();
  for (std::size_t c = 0; c < r.profile.cores.size(); ++c) {
    const xbar::CoreProfile& p = r.profile.cores[c];
    nlohmann::json names = nlohmann::json::array();
    if (c < r.coreLayers.size())
      for (const auto& l : r.coreLayers[c])
        names.push_back({{"name", r.layers[static_cast<std::size_t>(l.layer)].name}, {"ags", l.ags}});
    nlohmann::json core = {{"core", c},
                           {"chip", static_cast<int>(c) / r.profile.coresPerChip},
                           {"end_ns", p.endNs},
                           {"mvm_ns", p.mvmNs},
                           {"vector_ns", p.vectorNs},
                           {"memory_ns", p.memoryNs},
                           {"comm_sync_ns", p.commSyncNs},
                           {"comm_transfer_ns", p.commTransferNs},
                           {"comm_bytes", p.commBytes},
                           {"mvm_count", p.counts.mvmul},
                           {"crossbars_used", c < r.coreCrossbars.size() ? r.coreCrossbars[c] : 0},
                           {"layers", names}};
    if (c < r.coreLocalMemoryPeak.size()) core["local_memory_peak_elements"] = r.coreLocalMemoryPeak[c];
    if (c < r.coreSpillBytes.size()) core["spill_bytes"] = r.coreSpillBytes[c];
    cores.push_back(std::move(core));
  }
  return cores;
}

nlohmann::json resultJson(const NetworkCompileResult& r) {
  nlohmann::json replication = nlohmann::json::array(), layers = nlohmann::json::array();
  for (const CompiledLayer& l : r.layers) {
    replication.push_back({{"node", l.node}, {"name", l.name}, {"replicas", l.replicas}});
    const nlohmann::json passedOver =
        l.unfoldingPassedOver.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.unfoldingPassedOver);
    layers.push_back({{"node", l.node},
                      {"name", l.name},
                      {"op", l.op},
                      {"replicas", l.replicas},
                      {"ags_per_replica", l.agsPerReplica},
                      {"crossbars", l.crossbars},
                      {"windows", l.windows},
                      {"unfolding", l.unfolding},
                      {"unfolding_passed_over", passedOver},
                      {"mvm_count", l.time.counts.mvmul},
                      {"mvm_ns", l.time.mvmNs},
                      {"vector_ns", l.time.vectorNs},
                      {"memory_ns", l.time.memoryNs},
                      {"comm_ns", l.time.commNs},
                      {"start_ns", l.time.firstStartNs},
                      {"finish_ns", l.time.lastFinishNs}});
  }
  const nlohmann::json cores = coresJson(r);
  const xbar::EnergyBreakdown& e = r.energy;
  return {{"backend", r.backend},
          {"network", r.network},
          {"mode", modeName(r.mode)},
          {"replication_method", r.replication},
          {"timing", xbar::timingModelName(r.timing)},
          {"period_ns", optionalJson(r.periodNs)},
          {"throughput_per_s", optionalJson(r.throughputPerS)},
          {"first_batch_latency_ns", optionalJson(r.firstBatchLatencyNs)},
          {"pipeline_stages",
           r.mode == crossbar::PipelineMode::Ht ? nlohmann::json(r.pipelineStages) : nlohmann::json()},
          {"latency_ns", optionalJson(r.latencyNs)},
          {"energy_nj", r.energyNj},
          {"energy",
           {{"pimmu_nj", e.pimmuNj},
            {"vfu_nj", e.vfuNj},
            {"local_memory_nj", e.localMemoryNj},
            {"control_unit_nj", e.controlUnitNj},
            {"router_nj", e.routerNj},
            {"global_memory_nj", e.globalMemoryNj},
            {"hyper_transport_nj", e.hyperTransportNj},
            {"busy_nj", e.busyNj},
            {"idle_nj", e.idleNj}}},
          {"mvm_count", r.mvmCount},
          {"instruction_groups", r.instructionGroups},
          {"instructions", r.instructions},
          {"crossbars_used", r.crossbarsUsed},
          {"crossbars_total", r.crossbarsTotal},
          {"replicas_given_back", r.replicasGivenBack},
          {"placement", r.placement},
          {"spilled_pixels", r.spilledPixels},
          {"spilled_bytes", r.spilledBytes},
          {"spilled_accumulators", r.spilledAccumulators},
          {"volumes_bytes",
           {{"communication", r.profile.commBytes},
            {"load", r.profile.loadBytes},
            {"store", r.profile.storeBytes},
            {"inter_chip", r.profile.interChipBytes}}},
          {"replication", replication},
          {"layers", layers},
          {"cores", cores},
          {"cancelled", r.cancelled},
          {"ga", r.replication == kGaMethod ? gaJson(r) : nlohmann::json()},
          {"seconds",
           {{"plan", r.planSeconds},
            {"schedule_and_profile", r.scheduleSeconds},
            {"total", r.planSeconds + r.scheduleSeconds}}}};
}

void printText(const NetworkCompileResult& r) {
  std::cout << r.network << " on " << r.backend << " (" << r.acceleratorSummary << "), "
            << (r.mode == crossbar::PipelineMode::Ht ? "HT batch pipeline" : "LL element pipeline") << ", "
            << r.replication << " replication, " << xbar::timingModelName(r.timing) << " timing"
            << (r.cancelled ? " (CANCELLED: figures cover the instruction groups run)" : "") << "\n";
  if (r.periodNs)
    std::cout << "  period " << nsText(r.periodNs) << " per sample, throughput " << fixed1(*r.throughputPerS)
              << " samples/s, first batch " << nsText(r.firstBatchLatencyNs) << " ("
              << (r.timing == crossbar::TimingMode::Intended
                      ? std::to_string(r.pipelineLayers) + " layers in " + std::to_string(r.layerGroups) +
                            " groups, tcad's layer grouping"
                      : std::to_string(r.pipelineLayers) + " stages, one per layer as in PIMCOMP-NN; " +
                            std::to_string(r.layerGroups) + " with tcad's layer grouping")
              << ")\n";
  if (r.latencyNs) std::cout << "  latency " << nsText(r.latencyNs) << " per inference\n";
  std::cout << "  energy " << fixed3(r.energyNj / 1e6) << " mJ per inference (busy "
            << fixed3(r.energy.busyNj / 1e6) << " mJ, idle leakage " << fixed3(r.energy.idleNj / 1e6)
            << " mJ)\n"
            << "  " << grouped(static_cast<std::uint64_t>(r.mvmCount)) << " MVMs in "
            << grouped(static_cast<std::uint64_t>(r.instructionGroups)) << " instruction groups ("
            << grouped(static_cast<std::uint64_t>(r.instructions)) << " instructions); crossbars "
            << grouped(static_cast<std::uint64_t>(r.crossbarsUsed)) << " of "
            << grouped(static_cast<std::uint64_t>(r.crossbarsTotal))
            << (compileNote(r).empty() ? std::string() : "; " + compileNote(r)) << "\n";
  TextTable t({"node", "layer", "op", "unfolding", "replicas", "crossbars", "windows", "MVMs", "MVM ns",
               "vector ns", "memory ns", "comm ns"});
  for (const CompiledLayer& l : r.layers)
    t.add({std::to_string(l.node), l.name, l.op,
           l.unfoldingPassedOver.empty() ? l.unfolding : l.unfolding + " (not " + l.unfoldingPassedOver + ")",
           std::to_string(l.replicas), std::to_string(l.crossbars), std::to_string(l.windows),
           std::to_string(l.time.counts.mvmul), std::to_string(l.time.mvmNs), std::to_string(l.time.vectorNs),
           std::to_string(l.time.memoryNs), std::to_string(l.time.commNs)});
  std::cout << t.str();
  if (!r.gaHistory.empty())
    std::cout << "  genetic search: best fitness " << grouped(static_cast<std::uint64_t>(r.gaHistory.front()))
              << " ns at the start, " << grouped(static_cast<std::uint64_t>(r.gaHistory.back()))
              << " ns after " << r.gaHistory.size() - 1 << " iterations"
              << (r.gaCancelled ? " (stopped: the best so far)" : "") << "\n";
  std::cout << "  (" << num(r.planSeconds + r.scheduleSeconds) << " s: plan " << num(r.planSeconds)
            << " s, schedule and profile " << num(r.scheduleSeconds) << " s)\n";
}

void registerCompile(CLI::App& app) {
  auto a = std::make_shared<CompileArgs>();
  auto* cmd = app.add_subcommand("compile", "compile a network on a crossbar backend and profile it");
  cmd->add_option("--backend,-b", a->backend, "a crossbar backend (see `pimscope-cli backends`)")->required();
  cmd->add_option("--network,-n", a->network, "a shipped network (see `pimscope-cli networks`)");
  cmd->add_option("--model", a->model,
                  "a network file: PIMCOMP-NN's node-list .json or an ONNX model (.onnx)");
  cmd->add_option("--mode", a->mode, "ht (batch pipeline, throughput) or ll (element pipeline, latency)")
      ->capture_default_str();
  cmd->add_option(
         "--replication", a->replication,
         "how many copies of each layer's weights: " +
             [] {
               std::string names;
               for (const auto& n : compileMethodNames()) names += (names.empty() ? "" : ", ") + n;
               return names;
             }())
      ->capture_default_str();
  addTimingOption(cmd, a->timing);
  cmd->add_option(
         "--unfolding", a->unfolding,
         "weight unfolding: im2col (PIMCOMP-NN's only), auto (greedy per layer among the three formats the "
         "schedules run), or a Table IV format")
      ->capture_default_str();
  cmd->add_option("--dump-instructions", a->dump,
                  "write every instruction group to FILE (.json: JSON, else text)");
  cmd->add_option("--ga-population", a->gaPopulation, "GA: individuals per generation")
      ->check(wholeNumberIn(2, 100000))
      ->capture_default_str();
  cmd->add_option("--ga-iterations", a->gaIterations, "GA: generations (PIMCOMP-NN runs 3)")
      ->check(wholeNumberIn(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--ga-fitness", a->gaFitness,
                  "GA: fast (the profiler on a short instruction stream) or analytic (DAC'23's formula)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "GA: random seed (the same seed gives the same result on any threads)")
      ->check(unsignedInteger())
      ->capture_default_str();
  addThreadsOption(cmd, a->threads);
  cmd->add_flag("--json", a->json, "machine-readable output");
  a->whatIf.addTo(cmd);
  cmd->callback([a, cmd] {
    const Backend& shipped = builtinBackends().get(a->backend);
    const Backend b = a->whatIf.applyTo(shipped);
    NetworkCompileRequest req;
    req.compile.mode = modeOption(a->mode);
    req.compile.replication = a->replication;
    req.compile.unfolding.all = a->unfolding;
    req.timing = timingOption(a->timing);
    req.ga.population = a->gaPopulation;
    req.ga.iterations = a->gaIterations;
    req.ga.seed = a->seed;
    req.ga.threads = static_cast<int>(cappedThreads(a->threads));
    if (a->gaFitness != "fast" && a->gaFitness != "analytic")
      throw InputError("--ga-fitness: '" + a->gaFitness + "' is not a fitness (fast, analytic)");
    req.ga.fitness = a->gaFitness == "fast" ? crossbar::GaFitness::Fast : crossbar::GaFitness::Analytic;
    for (const char* ga : {"--ga-population", "--ga-iterations", "--ga-fitness", "--seed"})
      if (cmd->count(ga) > 0 && a->replication != kGaMethod)
        throw InputError(std::string(ga) + ": applies to --replication ga only");
    const Network net = networkOf(*a);
    std::optional<crossbar::InstructionDump> dump;
    if (!a->dump.empty()) req.alsoTo = &dump.emplace(a->dump);
    installInterruptHandler();
    req.cancel = &interrupted();
    if (stderrIsTerminal()) req.report = [](const std::string& line) { progressLine(line); };
    const NetworkCompileResult r = compileNetwork(b, net, req);
    progressLine("");
    if (dump) dump->finish();
    if (a->json) {
      nlohmann::json out = resultJson(r);
      a->whatIf.annotate(out, b);
      printJson(out);
    } else {
      std::cout << a->whatIf.line(b);
      printText(r);
    }
  });
}

}  // namespace

void registerCompileCommands(CLI::App& app) {
  registerNetworks(app);
  registerCompile(app);
}

}  // namespace pim::cli
