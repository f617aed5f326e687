// SPDX-License-Identifier: Apache-2.0
// `llms`, `llm` and `serve`: LLM inference end to end on a GPU with PIM devices beside it (issue 21,
// docs/llm.md).
#include <cstdio>
#include <iostream>
#include <optional>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/common/output_file.h"
#include "engine/llm/llm_export.h"
#include "engine/store/store.h"

namespace pim::cli {
namespace {

using namespace pim::llm;

/// The options every LLM command shares: the model and the hardware around it.
struct LlmArgs {
  std::string model = "gpt3-13b";
  std::string dtype;
  int gpus = 1;
  int devices = 5;
  bool noPowerConstraint = false;
  bool noCapacityCheck = false;
  bool lmHead = false;
  std::string backend = "attacc";
  std::string db;
  unsigned threads = 0;
  bool json = false;
  std::string csv;

  void addTo(CLI::App* cmd) {
    cmd->add_option("--model,-m", model, "a shipped LLM (see `pimscope-cli llms`) or a model .json file")
        ->capture_default_str();
    cmd->add_option("--dtype", dtype, "fp16 or fp8 (default: the model's)");
    cmd->add_option("--gpus", gpus, "A100s in tensor parallel")
        ->check(wholeNumberIn(1, 8))
        ->capture_default_str();
    cmd->add_option("--pim-devices", devices, "HBM-PIM stacks beside each GPU")
        ->check(wholeNumberIn(1, 64))
        ->capture_default_str();
    cmd->add_flag("--no-power-constraint", noPowerConstraint,
                  "AttAcc without its power constraint (MACAB every 4 cycles instead of 6)");
    cmd->add_flag("--no-capacity-check", noCapacityCheck,
                  "run a request whose weights and KV cache exceed the memory (reported, not refused)");
    cmd->add_flag("--lm-head", lmHead,
                  "also time the final norm and the LM head (hidden -> vocab) of every token; AttAcc and DCC "
                  "leave them out, so this is off by default");
    cmd->add_option("--backend,-b", backend, "the PIM backend beside the GPU")->capture_default_str();
    cmd->add_option("--db", db,
                    "results store whose lookup table DCC's schedules are read from and written to");
    addThreadsOption(cmd, threads);
    cmd->add_flag("--json", json, "machine-readable output");
  }

  LlmSetup setup(ResultsStore* store) const {
    LlmSetup s;
    s.model = model;
    s.dtype = dtype;
    s.gpus = gpus;
    s.pimDevicesPerGpu = devices;
    s.powerConstraint = !noPowerConstraint;
    s.checkCapacity = !noCapacityCheck;
    s.lmHead = lmHead;
    s.backend = backend;
    s.threads = cappedThreads(threads);
    s.store = store;
    return s;
  }
};

/// "A:B" as a range; a single number is the range of one value.
std::pair<std::int64_t, std::int64_t> rangeOption(const std::string& text, const char* option) {
  const auto colon = text.find(':');
  try {
    std::size_t used = 0;
    const std::int64_t lo = std::stoll(text.substr(0, colon), &used);
    if (used != (colon == std::string::npos ? text.size() : colon)) throw std::invalid_argument(text);
    if (colon == std::string::npos) return {lo, lo};
    const std::string rest = text.substr(colon + 1);
    const std::int64_t hi = std::stoll(rest, &used);
    if (used != rest.size()) throw std::invalid_argument(text);
    return {lo, hi};
  } catch (const std::logic_error&) {
    throw InputError(std::string(option) + ": '" + text + "' is not a range A:B of whole numbers");
  }
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.1f" : "%.3f", v);
  return buf;
}

nlohmann::json phasesJson(const std::array<double, kPhaseCount>& a) {
  nlohmann::json j;
  for (int p = 0; p < kPhaseCount; ++p) j[phaseName(static_cast<Phase>(p))] = a[p];
  return j;
}

nlohmann::json systemJson(const SystemResult& s) {
  nlohmann::json j = {{"system", s.system}, {"available", s.available}};
  if (!s.available) {
    j["reason"] = s.reason;
    return j;
  }
  j["time_per_token_ms"] = {{"mean", s.meanTokenMs}, {"first", s.firstTokenMs}, {"last", s.lastTokenMs}};
  j["prefill_ms"] = s.prefillMs;
  j["compile_ms"] = s.compileMs;
  j["total_ms"] = s.totalMs;
  j["tokens_per_s"] = s.tokensPerS;
  j["breakdown_ms"] = phasesJson(s.breakdownMs);
  j["kv_append_ms"] = s.kvAppendMs;
  j["energy_per_token_mj"] = s.energyPerTokenMj;
  nlohmann::json energy;
  for (int e = 0; e < kEnergyPartCount; ++e)
    energy[energyPartName(static_cast<EnergyPart>(e))] = {
        {"mj", s.energyMj[e]}, {"source", energySourceOf(static_cast<EnergyPart>(e))}};
  j["energy_per_token_by_part"] = energy;
  j["memory"] = {{"weight_bytes", s.memory.weightBytes},     {"kv_bytes", s.memory.kvBytes},
                 {"capacity_bytes", s.memory.capacityBytes}, {"weight_preload_ms", s.memory.weightPreloadMs},
                 {"kv_relayouts", s.memory.relayouts},       {"policy", s.memory.policy}};
  nlohmann::json decisions = nlohmann::json::array();
  for (const KernelDecision& d : s.decisions)
    decisions.push_back({{"op", d.op},
                         {"phase", phaseName(d.phase)},
                         {"shape", d.shape},
                         {"where", placementName(d.where)},
                         {"schedule", d.schedule},
                         {"gpu_us", d.gpuUs < 0 ? nlohmann::json(nullptr) : nlohmann::json(d.gpuUs)},
                         {"pim_us", d.pimUs < 0 ? nlohmann::json(nullptr) : nlohmann::json(d.pimUs)},
                         {"split_us", d.splitUs < 0 ? nlohmann::json(nullptr) : nlohmann::json(d.splitUs)},
                         {"margin", d.margin},
                         {"steps", {d.firstStep, d.lastStep}}});
  j["decisions"] = decisions;
  nlohmann::json series = nlohmann::json::array();
  for (const TokenStep& t : s.steps) series.push_back(t.ms);
  j["per_token_ms"] = series;
  return j;
}

void printInference(const InferenceResult& r) {
  std::cout << r.display << ", batch " << r.batch << ", " << r.lin << " input and " << r.lout
            << " output tokens, " << r.dtype << ", " << r.gpus << " GPU" << (r.gpus > 1 ? "s" : "") << "\n\n";
  const SystemResult* gpu = nullptr;
  for (const SystemResult& s : r.systems)
    if (s.system == "gpu" && s.available) gpu = &s;
  const int phases = reportedPhaseCount(r);
  std::vector<std::string> header = {"system", "ms/token", "first", "last"};
  for (int p = 0; p < phases; ++p)
    header.push_back(static_cast<Phase>(p) == Phase::Communication ? "comm"
                                                                   : phaseName(static_cast<Phase>(p)));
  for (const char* h : {"total ms", "tokens/s", "mJ/token", "vs gpu"}) header.push_back(h);
  TextTable t(header);
  for (const SystemResult& s : r.systems) {
    if (!s.available) continue;
    std::vector<std::string> row = {s.system, ms(s.meanTokenMs), ms(s.firstTokenMs), ms(s.lastTokenMs)};
    for (int p = 0; p < phases; ++p) row.push_back(ms(s.breakdownMs[p]));
    row.push_back(ms(s.totalMs));
    row.push_back(withDecimals(s.tokensPerS, 1));
    row.push_back(withDecimals(s.energyPerTokenMj, 1));
    row.push_back(gpu ? withDecimals(gpu->meanTokenMs / s.meanTokenMs, 2) + "x" : "-");
    t.add(row);
  }
  std::cout << t.str();
  for (const SystemResult& s : r.systems) {
    if (!s.available) {
      std::cout << "\n" << s.system << ": cannot run: " << s.reason << "\n";
      continue;
    }
    std::cout << "\n"
              << s.system << ": prefill " << ms(s.prefillMs) << " ms, KV append " << ms(s.kvAppendMs)
              << " ms/token, online compilation " << ms(s.compileMs) << " ms, KV cache laid out again "
              << s.memory.relayouts << " times\n";
    TextTable d({"kernel", "shape", "where", "schedule", "GPU us", "PIM us", "split us", "margin", "steps"});
    for (const KernelDecision& k : s.decisions) {
      auto us = [](double v) { return v < 0 ? std::string("-") : withDecimals(v, 2); };
      d.add({k.op, k.shape, placementName(k.where), k.schedule, us(k.gpuUs), us(k.pimUs), us(k.splitUs),
             k.margin > 0 ? withDecimals(k.margin, 2) + "x" : "-",
             std::to_string(k.firstStep) +
                 (k.lastStep > k.firstStep ? ".." + std::to_string(k.lastStep) : "")});
    }
    std::cout << d.str();
  }
  if (!r.systems.empty()) {
    const MemoryUse& m = r.systems.front().memory;
    std::cout << "\nmemory: " << withDecimals(static_cast<double>(m.weightBytes) / 1e9, 1)
              << " GB of weights + " << withDecimals(static_cast<double>(m.kvBytes) / 1e9, 2)
              << " GB of KV cache in " << withDecimals(static_cast<double>(m.capacityBytes) / 1e9, 1)
              << " GB\nresidency: " << m.policy << "\n";
  }
}

void registerLlms(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("llms", "list the shipped LLMs (llm --model, serve --model)");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"model", "name", "layers", "hidden", "heads", "K/V heads", "head dim", "FFN", "weights"});
    for (const std::string& name : llmModelNames()) {
      const LlmModel m = llmModelByName(name);
      const std::string ffn =
          std::to_string(m.ffn.hidden) + (m.ffn.gated ? " gated " : " ") + m.ffn.activation;
      const std::int64_t params = m.layers * m.weightParamsPerLayer();
      t.add({name, m.display, std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads),
             std::to_string(m.kvHeads), std::to_string(m.headDim), ffn,
             withDecimals(static_cast<double>(params) / 1e9, 2) + " B"});
      out.push_back({{"model", name},
                     {"display", m.display},
                     {"layers", m.layers},
                     {"hidden", m.hidden},
                     {"heads", m.heads},
                     {"kv_heads", m.kvHeads},
                     {"head_dim", m.headDim},
                     {"ffn_hidden", m.ffn.hidden},
                     {"gated", m.ffn.gated},
                     {"activation", m.ffn.activation},
                     {"weight_params", params},
                     {"source", m.source}});
    }
    if (*json) return printJson(out);
    std::cout << t.str();
  });
}

void registerLlm(CLI::App& app) {
  struct Args : LlmArgs {
    std::string systems = "gpu,attacc-base,attacc-base+dcc,attacc-full,attacc-full+dcc,auto";
    std::int64_t batch = 1, lin = 2048, lout = 128;
    std::string decisionsCsvPath;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("llm", "one LLM request end to end on GPU and GPU+PIM systems");
  a->addTo(cmd);
  cmd->add_option(
         "--system,-s", a->systems,
         "comma-separated: " +
             [] {
               std::string s;
               for (const auto& n : systemNames()) s += (s.empty() ? "" : ", ") + n;
               return s;
             }())
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "sequences decoded together")->capture_default_str();
  cmd->add_option("--lin", a->lin, "input (prompt) tokens")->capture_default_str();
  cmd->add_option("--lout", a->lout, "output tokens (the first comes from the prefill)")
      ->capture_default_str();
  cmd->add_option("--csv", a->csv, "write the per-token series of every system to FILE (CSV)");
  cmd->add_option("--decisions-csv", a->decisionsCsvPath, "write the decision table to FILE (CSV)");
  cmd->callback([a] {
    const std::vector<SystemChoice> systems = parseSystems(a->systems);
    std::optional<ResultsStore> store;
    if (!a->db.empty()) store.emplace(ResultsStore::open(a->db));
    for (const std::string* path : {&a->csv, &a->decisionsCsvPath})
      if (!path->empty()) requireWritableOutput(*path, path == &a->csv ? "--csv" : "--decisions-csv");
    LlmSimulator sim(a->setup(store ? &*store : nullptr));
    installInterruptHandler();
    const InferenceResult r = runInference(
        sim, systems, a->batch, a->lin, a->lout,
        [](const LlmProgress& p) {
          if (!stderrIsTerminal()) return;
          progressLine(p.system + " (" + std::to_string(p.systemIndex + 1) + " of " +
                       std::to_string(p.systems) + "): step " + std::to_string(p.step) + " of " +
                       std::to_string(p.steps) + ", " + std::to_string(p.tableSize) +
                       " shapes in the lookup table");
        },
        &interrupted());
    progressLine("");
    if (interrupted()) throw InputError("interrupted");
    if (!a->csv.empty()) writeCsv(a->csv, tokenSeriesCsv(r));
    if (!a->decisionsCsvPath.empty()) writeCsv(a->decisionsCsvPath, decisionsCsv(r));
    if (a->json) {
      nlohmann::json out = {{"model", r.model},    {"batch", r.batch},
                            {"lin", r.lin},        {"lout", r.lout},
                            {"dtype", r.dtype},    {"gpus", r.gpus},
                            {"lm_head", r.lmHead}, {"systems", nlohmann::json::array()}};
      for (const SystemResult& s : r.systems) out["systems"].push_back(systemJson(s));
      return printJson(out);
    }
    printInference(r);
  });
}

void printServe(const std::vector<ServeResult>& runs) {
  for (const ServeResult& run : runs) {
    std::cout << lookupModeName(run.mode) << " (" << run.system << "): ";
    if (run.requests.empty()) {
      std::cout << "no request served\n  stopped: " << run.reason << "\n";
      continue;
    }
    double sum = 0, compile = 0;
    for (const ServedRequest& q : run.requests) sum += q.latencyMs, compile += q.compileMs;
    std::cout << run.requests.size() << " requests, mean latency " << ms(sum / run.requests.size())
              << " ms, compilation " << ms(compile) << " ms in all, warm-up " << run.warmup << " requests, "
              << run.tableSize << " shapes in the table";
    if (run.mode == LookupMode::Offline)
      std::cout << " (filled before the stream in " << withDecimals(run.prefillSeconds, 1) << " s)";
    std::cout << "\n";
    if (!run.reason.empty()) std::cout << "  stopped: " << run.reason << "\n";
  }
}

void registerServe(CLI::App& app) {
  struct Args : LlmArgs {
    std::string system = "attacc-full+dcc";
    int requests = 100;
    std::uint64_t seed = 1;
    std::int64_t batch = 64;
    std::string lin = "128:2048", lout = "128:2048";
    std::string lookup = "both";
  };
  auto a = std::make_shared<Args>();
  a->model = "mt-nlg-310b";
  a->gpus = 8;
  auto* cmd =
      app.add_subcommand("serve", "a stream of synthetic requests with an online or offline lookup table");
  a->addTo(cmd);
  cmd->add_option("--system,-s", a->system, "one system (see llm --system)")->capture_default_str();
  cmd->add_option("--requests", a->requests, "requests in the stream")
      ->check(wholeNumberIn(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "random seed of the stream")
      ->check(unsignedInteger())
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "sequences per request")->capture_default_str();
  cmd->add_option("--lin", a->lin, "input tokens drawn from A:B")->capture_default_str();
  cmd->add_option("--lout", a->lout, "output tokens drawn from A:B")->capture_default_str();
  cmd->add_option("--lookup", a->lookup, "online, offline or both (DCC Fig. 15)")->capture_default_str();
  cmd->add_option("--csv", a->csv, "write the latency of every request to FILE (CSV)");
  cmd->callback([a] {
    const SystemChoice system = parseSystem(a->system);
    StreamSpec spec;
    spec.requests = a->requests;
    spec.seed = a->seed;
    spec.batch = a->batch;
    std::tie(spec.linMin, spec.linMax) = rangeOption(a->lin, "--lin");
    std::tie(spec.loutMin, spec.loutMax) = rangeOption(a->lout, "--lout");
    streamRequests(spec);  // refuses a bad range before anything runs
    std::vector<LookupMode> modes;
    if (a->lookup == "online" || a->lookup == "both") modes.push_back(LookupMode::Online);
    if (a->lookup == "offline" || a->lookup == "both") modes.push_back(LookupMode::Offline);
    if (modes.empty()) throw InputError("--lookup: '" + a->lookup + "' is not online, offline or both");
    if (!a->csv.empty()) requireWritableOutput(a->csv, "--csv");
    std::optional<ResultsStore> store;
    if (!a->db.empty()) store.emplace(ResultsStore::open(a->db));
    installInterruptHandler();
    std::vector<ServeResult> runs;
    for (LookupMode mode : modes) {
      LlmSimulator sim(a->setup(store ? &*store : nullptr));  // each mode starts from its own table
      runs.push_back(serveStream(
          sim, system, spec, mode,
          [&](const ServedRequest& q) {
            if (stderrIsTerminal())
              progressLine(std::string(lookupModeName(mode)) + ": request " + std::to_string(q.index + 1) +
                           " of " + std::to_string(spec.requests) + ", " + std::to_string(q.tableSize) +
                           " shapes in the table");
          },
          &interrupted()));
      progressLine("");
    }
    if (interrupted()) throw InputError("interrupted");
    if (!a->csv.empty()) writeCsv(a->csv, servedCsv(runs));
    if (a->json) {
      nlohmann::json out = {
          {"model", a->model}, {"system", system.name()}, {"runs", nlohmann::json::array()}};
      for (const ServeResult& run : runs) {
        nlohmann::json latency = nlohmann::json::array(), compile = nlohmann::json::array();
        for (const ServedRequest& q : run.requests)
          latency.push_back(q.latencyMs), compile.push_back(q.compileMs);
        out["runs"].push_back(
            {{"lookup", lookupModeName(run.mode)},
             {"latency_ms", latency},
             {"compile_ms", compile},
             {"warmup_requests", run.warmup},
             {"table_size", run.tableSize},
             {"offline_fill_s", run.prefillSeconds},
             {"stopped", run.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.reason)}});
      }
      return printJson(out);
    }
    printServe(runs);
  });
}

}  // namespace

void registerLlmCommands(CLI::App& app) {
  registerLlms(app);
  registerLlm(app);
  registerServe(app);
}

}  // namespace pim::cli
