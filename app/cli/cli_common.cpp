// SPDX-License-Identifier: Apache-2.0
#include "app/cli/cli_common.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/json_output.h"
#include "engine/target/registry.h"

namespace pim::cli {

namespace {

bool isDecimalDigits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
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
        return isDecimalDigits(text) ? std::string() : "'" + text + "' is not a whole number >= 0";
      },
      "WHOLE NUMBER >= 0", "UNSIGNED");
}

std::uint64_t parseDraftId(const std::string& text, const std::string& option) {
  // std::stoull alone accepts "-1" (as 2^64-1), leading blanks and a sign.
  if (isDecimalDigits(text)) {
    errno = 0;
    const unsigned long long id = std::strtoull(text.c_str(), nullptr, 10);
    if (errno != ERANGE) return id;
  }
  throw InputError(option + ": '" + text + "' is not a draft id (a whole number from 0 to 2^64-1)");
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

void ProblemOptions::addTo(CLI::App* cmd) {
  cmd->add_option("--backend,-b", backend, "backend name (see `pimscope-cli backends`)")->required();
  cmd->add_option("--kernel,-k", kernel, "library kernel name (see `pimscope-cli kernels`)");
  cmd->add_option("--kernel-file", kernelFile, "kernel DSL file instead of a library kernel");
  cmd->add_option("--dims,-d", dims, "dimension sizes, e.g. b=1,out=4096,in=4096 (defaults fill the rest)");
}

void ProblemOptions::addChannelsTo(CLI::App* cmd) {
  cmd->add_option("--channels", channels, "restrict the backend to this many pseudo-channels")
      ->check(unsignedInteger());
}

std::unique_ptr<Problem> ProblemOptions::build() const {
  if (kernel.empty() && kernelFile.empty()) {
    throw InputError("--kernel: give a library kernel or --kernel-file");
  }
  Backend b = builtinBackends().get(backend);
  if (channels != 0) b = b.withPseudoChannels(channels);
  Kernel k = resolveKernel(kernel, kernelFile);
  Shape s = parseShape(k, dims);
  return std::make_unique<Problem>(b, std::move(k), std::move(s));
}

std::string TextTable::str() const {
  std::vector<std::size_t> width;
  for (const auto& row : m_rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  auto numeric = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789.,-%x") == std::string::npos;
  };
  std::string out;
  for (std::size_t r = 0; r < m_rows.size(); ++r) {
    for (std::size_t i = 0; i < m_rows[r].size(); ++i) {
      const auto& cell = m_rows[r][i];
      const std::string pad(width[i] - cell.size(), ' ');
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

nlohmann::json draftJson(const DraftSpace& space, const Draft& d) {
  nlohmann::json parts = nlohmann::json::array();
  for (int i = 0; i < space.partCount(); ++i) {
    const auto& p = d.parts[i];
    parts.push_back({{"groups", p.groups},
                     {"cores", p.cores},
                     {"representative", mappingLabel(space.kernel(), space.representative(i, p))},
                     {"per_core", space.perCoreSize(i, p)}});
  }
  return {{"id", d.id}, {"label", space.label(d)}, {"parts", parts}};
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
  const bool timed = e.provenance != Provenance::Analytic;
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
                        {"resident_bytes", e.residentBytes},
                        {"padding_bytes", e.paddingBytes},
                        {"commands", e.commands},
                        {"command_bus_utilisation", e.commandBusUtilisation}};
  if (unitsOf) out.update(unitStatisticsJson(e.unitStats, *unitsOf));
  return out;
}

std::string evaluationText(const Evaluation& e, const Backend& b) {
  if (e.provenance == Provenance::Analytic) {
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
  for (int i = 0; i < 3; ++i)
    t.add({kPhases[i], grouped(e.cycles[i]), num(e.ns(i)), pct(static_cast<double>(e.cycles[i]))});
  t.add({"total", grouped(e.totalCycles), num(e.timeNs), "100.0%"});
  std::string out = t.str();
  out += "energy " + num(e.energyPj / 1e3) + " nJ (" + std::string(provenanceName(e.provenance)) + "), " +
         std::to_string(e.unitsUsed) + " " + targetOf(b).geometry(b).innerName + "s used, " +
         grouped(static_cast<std::uint64_t>(e.paddingBytes)) + " padding bytes, " +
         grouped(static_cast<std::uint64_t>(e.commands)) + " commands\n";
  return out;
}

}  // namespace pim::cli
