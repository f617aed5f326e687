// SPDX-License-Identifier: Apache-2.0
#include "app/cli/cli_common.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/json_output.h"
#include "engine/common/number_text.h"
#include "engine/target/registry.h"

namespace pim::cli {

namespace {

bool isDecimalDigits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

/// Decimal digits of a value that fits 64 bits. std::strtoull saturates a longer number at 2^64-1, which
/// `why --draft 99999999999999999999999` then reported as "draft 18446744073709551615".
bool isUint64(const std::string& text) {
  if (!isDecimalDigits(text)) return false;
  errno = 0;
  (void)std::strtoull(text.c_str(), nullptr, 10);
  return errno != ERANGE;
}

}  // namespace

CLI::Validator nonNegative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
          return "'" + text + "' is not a finite number >= 0";
        return {};
      },
      "NUMBER >= 0", "NONNEGATIVE");
}

CLI::Validator unsignedInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!isDecimalDigits(text)) return "'" + text + "' is not a whole number >= 0";
        return isUint64(text) ? std::string() : "'" + text + "' is above 2^64-1";
      },
      "WHOLE NUMBER >= 0", "UNSIGNED");
}

void BoundaryPassFlags::addTo(CLI::App* cmd) {
  cmd->add_flag("--no-dma-guard-elimination", noDmaGuards,
                "upmem: keep the guards of WRAM copy loops (element-by-element copies; IMTP 5.3.1 off)");
  cmd->add_flag("--no-loop-tightening", noTightening,
                "upmem: keep guards on loop variables in the loop bodies (IMTP 5.3.2 off)");
  cmd->add_flag("--no-branch-hoisting", noHoisting,
                "upmem: keep loop-invariant row guards inside the loops (IMTP 5.3.3 off)");
}

nlohmann::json BoundaryPassFlags::json() const {
  if (!noDmaGuards && !noTightening && !noHoisting) return nullptr;
  return {{"dma_guard_elimination", !noDmaGuards},
          {"loop_tightening", !noTightening},
          {"branch_hoisting", !noHoisting}};
}

CLI::Validator wholeNumberIn(std::uint64_t lo, std::uint64_t hi) {
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        if (!isUint64(text)) return "'" + text + "' is not " + range;
        const std::uint64_t v = std::strtoull(text.c_str(), nullptr, 10);
        return v >= lo && v <= hi ? std::string() : "'" + text + "' is not " + range;
      },
      "WHOLE NUMBER " + std::to_string(lo) + ".." + std::to_string(hi), "RANGE");
}

std::uint64_t parseDraftId(const std::string& text, const std::string& option) {
  // std::stoull alone accepts "-1" (as 2^64-1), leading blanks and a sign.
  if (isUint64(text)) return std::strtoull(text.c_str(), nullptr, 10);
  throw InputError(option + ": '" + text + "' is not a draft id (a whole number from 0 to 2^64-1)");
}

void addModelOption(CLI::App* cmd, std::string& model, const char* defaultName) {
  cmd->add_option(
      "--model", model,
      std::string("who labels drafts: pimscope | dcc-kernel | dcc-inference (DCC's public artifact "
                  "reproduced on hbm-pim and attacc; dcc-artifact = dcc-kernel); default ") +
          defaultName);
}

LabelModel modelOption(const std::string& text) {
  if (text == "dcc-artifact") return LabelModel::DccKernel;
  if (auto m = parseLabelModel(text)) return *m;
  throw InputError("--model: '" + text + "' is not pimscope, dcc-kernel, dcc-inference or dcc-artifact");
}

void addTimingOption(CLI::App* cmd, std::string& timing) {
  cmd->add_option("--timing", timing,
                  "crossbar backends: pimcomp-nn (PIMCOMP-NN's profiler as implemented, 800 ns MVMs) or "
                  "intended (the paper's: the MVM from its parts, chips as configured)")
      ->capture_default_str();
}

xbar::TimingModel timingOption(const std::string& text) {
  if (auto m = xbar::parseTimingModel(text)) return *m;
  throw InputError("--timing: '" + text + "' is not a timing mode (pimcomp-nn, intended)");
}

void addThreadsOption(CLI::App* cmd, unsigned& threads) {
  cmd->add_option("--threads", threads, "simulation threads (default: one per hardware thread)")
      ->check(unsignedInteger());
}

unsigned cappedThreads(unsigned requested) {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  if (requested <= hardware) return requested;
  std::cerr << "pimscope-cli: warning: --threads " << requested << " is more than the " << hardware
            << " hardware threads of this machine; using " << hardware << "\n";
  return hardware;
}

std::string num(double v) { return compactNumber(v); }

nlohmann::json subjectJson(const Problem& p) {
  const nlohmann::json name = p.subject();
  return {{"kernel", p.network() ? nullptr : name}, {"network", p.network() ? name : nullptr}};
}

Kernel kernelOption(const std::string& kernel, const std::string& kernelFile, const std::string& dtype) {
  Kernel k = resolveKernel(kernel, kernelFile);
  if (dtype.empty()) return k;
  const auto t = parseDType(dtype);
  if (!t)
    throw InputError("--dtype: unknown element type '" + dtype + "' (f16, bf16, f32, f64, i8, i32, i64)");
  return retyped(std::move(k), *t);
}

void addDTypeOption(CLI::App* cmd, std::string& dtype) {
  cmd->add_option("--dtype", dtype,
                  "run the kernel with every tensor of this element type: f16, bf16, f32, f64, i8, i32, i64 "
                  "(default: as the kernel declares)");
}

void ProblemOptions::addTo(CLI::App* cmd) {
  cmd->add_option("--backend,-b", backend, "backend name (see `pimscope-cli backends`)")->required();
  cmd->add_option("--kernel,-k", kernel, "library kernel name (see `pimscope-cli kernels`)");
  cmd->add_option("--kernel-file", kernelFile, "kernel DSL file instead of a library kernel");
  cmd->add_option("--network", network,
                  "a shipped network instead of a kernel (see `pimscope-cli networks`), compiled whole: "
                  "crossbar backends");
  cmd->add_option(
      "--network-file", networkFile,
      "a network file instead of a kernel: PIMCOMP-NN's node-list .json or an ONNX model (.onnx)");
  cmd->add_option("--dims,-d", dims, "dimension sizes, e.g. b=1,out=4096,in=4096 (defaults fill the rest)");
  addDTypeOption(cmd, dtype);
  cmd->add_option("--resident", resident,
                  "tensors kept in the banks between calls, placed once in the draft's layout, e.g. W or K,V "
                  "(default: what the kernel declares; `pimscope-cli kernels` lists it)");
  cmd->add_option("--streamed", streamed,
                  "tensors moved from and to the host layout on every call, overriding the kernel's default");
  whatIf.addTo(cmd);
}

void ProblemOptions::addChannelsTo(CLI::App* cmd) {
  cmd->add_option("--channels", channels,
                  "restrict the backend to this many pseudo-channels on one device (a shorthand for "
                  "system.devices, dram.channels and group.groupsPerDevice; applied after --set, which may "
                  "not give them other values)")
      ->check(unsignedInteger());
}

std::unique_ptr<Problem> ProblemOptions::build() const {
  const int subjects = !kernel.empty() + !kernelFile.empty() + !network.empty() + !networkFile.empty();
  if (subjects != 1)
    throw InputError(subjects == 0 ? "--kernel: give a library kernel or --kernel-file (or a whole network: "
                                     "--network or --network-file)"
                                   : "give one of --kernel, --kernel-file, --network and --network-file");
  const Backend& shipped = builtinBackend(backend);
  if (channels == 0) return problemOf(whatIf.applyTo(shipped));
  // --channels sets a few parameters (Backend::withPseudoChannels). A --set of one of them to another value
  // would be overwritten silently: refused. One that agrees is left to --channels, which sets it together
  // with the others (alone it could fail the family's cross-checks, e.g. groups x pseudo-channels).
  auto conflict = [&](const std::string& name, double value, double set) {
    return InputError("--set " + name + "=" + num(value) + " conflicts with --channels " +
                      std::to_string(channels) + ", which sets " + name + " to " + num(set) +
                      "; give one of them");
  };
  const Backend byChannels = shipped.withPseudoChannels(channels);
  const auto values = whatIf.values();
  WhatIfOptions rest;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, value] = values[i];
    const Parameter* before = shipped.param(name);  // applyTo names an unknown one
    if (before && byChannels.param(name)->value != before->value) {
      if (byChannels.param(name)->value != value) throw conflict(name, value, byChannels.param(name)->value);
      continue;
    }
    rest.settings.push_back(whatIf.settings[i]);
  }
  const Backend edited = rest.applyTo(shipped);
  const Backend restricted = edited.withPseudoChannels(channels);
  // --set may change what --channels derives (pseudo-channels per group): checked again on the result.
  for (const auto& [name, value] : rest.values())
    if (restricted.param(name)->value != value) throw conflict(name, value, restricted.param(name)->value);
  return problemOf(restricted);
}

std::unique_ptr<Problem> ProblemOptions::problemOf(const Backend& b) const {
  if (!network.empty() || !networkFile.empty()) {
    // A network is compiled as its file describes it: no shape, element type or residency to give.
    for (const auto& [given, option] :
         {std::pair{&dims, "--dims"}, std::pair{&dtype, "--dtype"}, std::pair{&resident, "--resident"},
          std::pair{&streamed, "--streamed"}})
      if (!given->empty())
        throw InputError(std::string(option) + ": a network runs as its file describes it; leave it out");
    return std::make_unique<Problem>(b, resolveNetwork(network, networkFile));
  }
  Kernel k = kernelOption(kernel, kernelFile, dtype);
  Shape s = parseShape(k, dims);
  if (!targetOf(b).searchSettings().residency && (!resident.empty() || !streamed.empty()))
    throw InputError(std::string(resident.empty() ? "--streamed" : "--resident") + ": backend " + b.name +
                     " (family " + b.family + ") does not read residency; leave it out");
  Residency r = residencyOn(b, k, overrideResidency(k, Residency::declared(k), resident, streamed));
  return std::make_unique<Problem>(b, std::move(k), std::move(s), std::move(r));
}

void requireReadSettings(const Backend& b, const EvalOptions& o) {
  if (const auto unread = unreadSettings(b, o); !unread.empty())
    throw InputError(unread.front() + ": backend " + b.name + " (family " + b.family +
                     ") does not read it; leave it out");
}

namespace {

/// Characters a terminal shows for UTF-8 `s` ("µs", "HT · im2col"): its bytes less the continuation bytes.
std::size_t displayWidth(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

std::string TextTable::str() const {
  std::vector<std::size_t> width;
  for (const auto& row : m_rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], displayWidth(row[i]));
  }
  auto numeric = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789.,-%x") == std::string::npos;
  };
  std::string out;
  for (std::size_t r = 0; r < m_rows.size(); ++r) {
    for (std::size_t i = 0; i < m_rows[r].size(); ++i) {
      const auto& cell = m_rows[r][i];
      const std::string pad(width[i] - displayWidth(cell), ' ');
      out += (r > 0 && numeric(cell)) ? pad + cell : cell + pad;
      if (i + 1 < m_rows[r].size()) out += "  ";
    }
    out += "\n";
    if (r == 0) {
      for (std::size_t i = 0; i < width.size(); ++i)
        out += std::string(width[i], '-') + (i + 1 < width.size() ? "  " : "");
      out += "\n";
    }
  }
  return out;
}

std::string grouped(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string EtaMeter::operator()(const std::string& key, double done, double total) {
  const auto left = m_meter.secondsLeft(key, done, total);
  if (!left) return "";
  return *left < 1 ? ", under a second left" : ", about " + durationText(*left) + " left";
}

nlohmann::json draftJson(const Problem& problem, const Draft& d) {
  const DraftSpace& space = problem.space();
  nlohmann::json parts = nlohmann::json::array();
  if (d.parts.size() != static_cast<std::size_t>(space.partCount()))  // a family's own space: no parts
    return {
        {"id", d.id}, {"label", targetOf(problem.backend()).candidates(problem)->label(d)}, {"parts", parts}};
  for (int i = 0; i < space.partCount(); ++i) {
    const auto& p = d.parts[i];
    parts.push_back({{"groups", p.groups},
                     {"cores", p.cores},
                     {"representative", mappingLabel(space.kernel(), space.representative(i, p))},
                     {"per_core", space.perCoreSize(i, p)}});
  }
  nlohmann::json j = {{"id", d.id}, {"label", space.label(d)}, {"parts", parts}};
  // Kernel-level choices other than the backend's (engine/core/kernel_choices.h), by axis.
  const CandidateIds ids = targetOf(problem.backend()).candidateIds(problem);
  if (d.id >= ids.drafts()) {
    const std::vector<int> c = ids.choiceOf(d.id);
    nlohmann::json choices = nlohmann::json::object();
    for (std::size_t a = 0; a < ids.axes().size(); ++a) {
      const ChoiceAxis& axis = ids.axes()[a];
      choices[axis.key] = axis.values[static_cast<std::size_t>(c[a])];
    }
    j["label"] = space.label(d) + " {" + ids.label(d.id) + "}";
    j["draft"] = ids.draftOf(d.id);
    j["choices"] = choices;
  }
  return j;
}

void printJson(const nlohmann::json& j) { std::cout << dumpJson(j, 2) << "\n"; }

namespace {

/// {"<inner unit>s": [{<band key>, <unit key>, <statistic>...}, ...]}, one entry per unit, as declared.
nlohmann::json unitStatisticsJson(const UnitStatistics& stats, const Backend& b) {
  const ITarget& target = targetOf(b);
  const UnitGeometry g = target.geometry(b);
  const std::vector<StatDecl>& decls = target.statistics();
  const std::string bandKey = g.bandKey.empty() ? g.outerName : g.bandKey;
  const std::string unitKey = g.unitKey.empty() ? g.innerName : g.unitKey;
  const std::size_t perBand = static_cast<std::size_t>(std::max(1, g.unitsPerBand()));
  nlohmann::json units = nlohmann::json::array();
  for (std::size_t u = 0; u < stats.units(); ++u) {
    nlohmann::json unit = {{bandKey, u / perBand}, {unitKey, u % perBand}};
    for (std::size_t s = 0; s < decls.size() && s < stats.statCount; ++s) {
      const double v = stats.at(u, s);
      unit[decls[s].key] = decls[s].integral ? nlohmann::json(std::llround(v)) : nlohmann::json(v);
    }
    units.push_back(std::move(unit));
  }
  return {{g.innerName + "s", std::move(units)}};
}

}  // namespace

nlohmann::json evaluationJson(const Evaluation& e, const Backend* unitsOf) {
  static const char* kPhases[] = {"input_rearrangement", "compute", "output_rearrangement"};
  nlohmann::json cycles = nlohmann::json::object(), ns = nlohmann::json::object();
  // An analytic estimate has no phases to report, unless its target times them (sub-phases: the conv
  // hierarchy's bound).
  const bool timed = e.provenance != Provenance::Analytic || !e.subCycles.empty();
  for (int i = 0; i < 3; ++i) {
    cycles[kPhases[i]] = e.cycles[i];
    ns[kPhases[i]] = e.ns(i);
  }
  cycles["total"] = e.totalCycles;
  ns["total"] = e.timeNs;
  const auto& en = e.energy;
  nlohmann::json energy = {
      {"act_pre", en.actPre_pJ},  {"rd_wr", en.rdWr_pJ},     {"pim_compute", en.pimCompute_pJ},
      {"refresh", en.refresh_pJ}, {"host_io", en.hostIo_pJ}, {"buffer_moves", en.bufferMoves_pJ},
      {"total", e.energyPj}};
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [component, source] : en.sources) sources[component] = source;
  nlohmann::json out = {{"provenance", provenanceName(e.provenance)},
                        {"cycles", timed ? cycles : nlohmann::json(nullptr)},
                        {"time_ns", timed ? ns : nlohmann::json{{"total", e.timeNs}}},
                        {"tck_ns", e.tCKns},
                        {"energy_pj", energy},
                        {"energy_sources", sources},
                        {"banks_used", e.unitsUsed},
                        {"placed_bytes", e.placedBytes},
                        {"padding_bytes", e.paddingBytes},
                        {"commands", e.commands},
                        {"command_bus_utilisation", e.commandBusUtilisation}};
  if (e.preloadCycles) {
    const auto c = *e.preloadCycles;
    out["preload"] = {{"cycles", c}, {"ns", static_cast<double>(c) * e.tCKns}};
  }
  if (unitsOf) {
    out.update(unitStatisticsJson(e.unitStats, *unitsOf));
    const auto& subs = targetOf(*unitsOf).subPhases();
    if (timed && !subs.empty() && e.subCycles.size() == subs.size()) {
      nlohmann::json parts = nlohmann::json::object();
      for (std::size_t i = 0; i < subs.size(); ++i)
        parts[subs[i].key] = {{"phase", kPhases[subs[i].phase]},
                              {"cycles", e.subCycles[i]},
                              {"ns", static_cast<double>(e.subCycles[i]) * e.tCKns}};
      out["sub_phases"] = parts;
    }
    // The family's own summary: its sub-phases in ms and what it reports of the run.
    nlohmann::json own = nlohmann::json::object();
    for (std::size_t i = 0; timed && i < subs.size() && i < e.subCycles.size(); ++i)
      own[subs[i].key + "_ms"] = static_cast<double>(e.subCycles[i]) * e.tCKns / 1e6;
    for (const auto& [name, value] : e.facts) own[name] = value;
    if (!own.empty()) out[std::string(targetOf(*unitsOf).family())] = own;
  }
  return out;
}

std::string evaluationText(const Evaluation& e, const Backend& b) {
  if (e.provenance == Provenance::Analytic && e.subCycles.empty()) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "total time %.1f ns, energy %.1f nJ (analytic model, no bank-level timeline)\n", e.timeNs,
                  e.energyPj / 1e3);
    return buf;
  }
  TextTable t({"phase", "cycles", "ns", "share"});
  static const char* kPhases[] = {"input rearrangement", "compute", "output rearrangement"};
  auto pct = [&](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%",
                  e.totalCycles ? 100.0 * x / static_cast<double>(e.totalCycles) : 0.0);
    return std::string(buf);
  };
  auto num = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return std::string(buf);
  };
  const auto& subs = targetOf(b).subPhases();
  const bool withSubs = !subs.empty() && e.subCycles.size() == subs.size();
  for (int i = 0; i < 3; ++i) {
    t.add({kPhases[i], grouped(e.cycles[i]), num(e.ns(i)), pct(static_cast<double>(e.cycles[i]))});
    for (std::size_t s = 0; withSubs && s < subs.size(); ++s) {
      if (subs[s].phase != i) continue;
      const auto c = static_cast<double>(e.subCycles[s]);
      t.add({"  " + subs[s].label, grouped(e.subCycles[s]), num(c * e.tCKns), pct(c)});
    }
  }
  t.add({"total", grouped(e.totalCycles), num(e.timeNs), "100.0%"});
  std::string out = t.str();
  out += "energy " + num(e.energyPj / 1e3) + " nJ (" + std::string(provenanceName(e.provenance)) + "), " +
         std::to_string(e.unitsUsed) + " " + targetOf(b).geometry(b).innerName + "s used, " +
         grouped(static_cast<std::uint64_t>(e.paddingBytes)) + " padding bytes" +
         (e.commands > 0 ? ", " + grouped(static_cast<std::uint64_t>(e.commands)) + " commands" : "") + "\n";
  if (e.preloadCycles)
    out += "preload (once, resident tensors into this layout, not in the total): " +
           grouped(static_cast<std::uint64_t>(*e.preloadCycles)) + " cycles, " +
           num(static_cast<double>(*e.preloadCycles) * e.tCKns) + " ns\n";
  return out;
}

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }
}  // namespace

std::atomic<bool>& interrupted() { return g_interrupted; }

void installInterruptHandler() {
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

bool stderrIsTerminal() { return isatty(STDERR_FILENO); }

void progressLine(const std::string& text) {
  if (stderrIsTerminal()) std::cerr << "\r\033[K" << text << std::flush;
}

void warnIfTrainedElsewhere(const Predictor& model, const Backend& b, const WhatIfOptions& whatIf) {
  if (model.metadata().backendHash == b.hash()) return;
  std::cerr << "pimscope-cli: warning: the shipped model of " << b.name
            << " was trained on other parameters than "
            << (!whatIf.empty()  ? b.name + " with --set"
                : b.file.empty() ? b.name
                                 : b.file)
            << "; its predictions are extrapolated, with no measured error\n";
}

}  // namespace pim::cli
