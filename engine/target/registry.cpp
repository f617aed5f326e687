// SPDX-License-Identifier: Apache-2.0
#include "engine/target/registry.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "engine/common/error.h"
#include "engine/target/crossbar/crossbar_target.h"
#include "engine/target/dram_pim/dram_pim_target.h"
#include "engine/target/pim_hierarchy/pim_hierarchy_target.h"
#include "engine/target/upmem/upmem_target.h"

namespace pim {

void registerBuiltinTargets(TargetRegistry& r) {
  r.add(makeDramPimTarget(hbm2PimDevice()));
  r.add(makeDramPimTarget(hbmPimDevice()));
  r.add(makeDramPimTarget(attaccDevice()));
  r.add(makeDramPimTarget(gddr6AimDevice()));
  r.add(makeUpmemTarget());
  r.add(makePimHierarchyTarget());
  r.add(makeCrossbarTarget());
}

namespace {

TargetRegistry& processTargets() {
  static TargetRegistry reg = [] {
    TargetRegistry r;
    registerBuiltinTargets(r);
    return r;
  }();
  return reg;
}

std::filesystem::path backendDir() { return std::filesystem::path(dataDir()) / "backends"; }

std::atomic<bool> g_allBackendsLoaded{false};

BackendRegistry& processBackends() {
  static BackendRegistry reg = [] {
    BackendRegistry r;
    namespace fs = std::filesystem;
    const fs::path dir = backendDir();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": backend directory not found");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) r.add(loadBackendFile(f.string()));
    g_allBackendsLoaded = true;
    return r;
  }();
  return reg;
}

}  // namespace

const TargetRegistry& TargetRegistry::builtin() { return processTargets(); }

void registerTarget(std::unique_ptr<ITarget> t) { processTargets().add(std::move(t)); }

void TargetRegistry::add(std::unique_ptr<ITarget> t) {
  if (find(t->family()))
    throw InputError("target registry: family '" + std::string(t->family()) + "' is registered twice");
  m_targets.push_back(std::move(t));
}

const ITarget* TargetRegistry::find(std::string_view family) const {
  for (const auto& t : m_targets)
    if (t->family() == family) return t.get();
  return nullptr;
}

const ITarget& TargetRegistry::of(const Backend& b) const {
  if (const ITarget* t = find(b.family)) return *t;
  std::string known;
  for (const auto& f : families()) known += (known.empty() ? "" : ", ") + f;
  throw InputError((b.file.empty() ? b.name : b.file) + ": family: unknown hardware family '" + b.family +
                   "' (known: " + known + ")");
}

const BackendSchema* TargetRegistry::schemaOf(std::string_view family) const {
  const ITarget* t = find(family);
  return t ? &t->schema() : nullptr;
}

std::vector<std::string> TargetRegistry::families() const {
  std::vector<std::string> out;
  for (const auto& t : m_targets) out.emplace_back(t->family());
  return out;
}

const ITarget& targetOf(const Backend& b) { return TargetRegistry::builtin().of(b); }

const BackendRegistry& builtinBackends() { return processBackends(); }

const Backend& builtinBackend(std::string_view name) {
  if (g_allBackendsLoaded) return processBackends().get(name);
  // A command on one backend parses only its file: parsing all of them was an eighth of a `simulate`.
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<const Backend>, std::less<>> alone;
  {
    const std::lock_guard<std::mutex> lock(m);
    if (auto it = alone.find(name); it != alone.end()) return *it->second;
    std::error_code ec;
    const auto file = backendDir() / (std::string(name) + ".json");
    if (name.find_first_of("/\\") == std::string_view::npos && std::filesystem::is_regular_file(file, ec)) {
      auto b = std::make_unique<const Backend>(loadBackendFile(file.string()));
      if (b->name == name) return *alone.emplace(std::string(name), std::move(b)).first->second;
    }
  }
  return processBackends().get(name);  // named otherwise than its file, registered, or unknown: the full list
}

void registerBackend(Backend b) {
  const auto& all = processBackends().all();
  if (std::any_of(all.begin(), all.end(), [&](const Backend& x) { return x.name == b.name; }))
    throw InputError((b.file.empty() ? b.name : b.file) + ": a backend named '" + b.name +
                     "' exists already");
  targetOf(b);  // refuses an unregistered family
  processBackends().add(std::move(b));
}

Backend parseBackend(std::string_view jsonText, std::string_view origin) {
  return parseBackend(jsonText, origin, TargetRegistry::builtin());
}

Backend loadBackendFile(const std::string& path) { return loadBackendFile(path, TargetRegistry::builtin()); }

namespace {

std::string joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const auto& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

}  // namespace

void requireRunnable(const Problem& p) {
  if (const std::string why = joined(targetOf(p.backend()).check(p)); !why.empty())
    throw InputError(p.subject() + " cannot run on " + p.backend().name + ": " + why);
}

Residency residencyOn(const Backend& b, const Kernel& k, Residency requested) {
  if (targetOf(b).searchSettings().residency) return requested;
  requested.resident.assign(k.tensors.size(), false);
  return requested;
}

std::vector<std::string> unreadSettings(const Backend& b, const EvalOptions& o) {
  const SearchSettings reads = targetOf(b).searchSettings();
  std::vector<std::string> unread;
  if (!reads.dccLowering && !o.optimizer.stagedRearrangement) unread.emplace_back("--no-staged");
  if (!reads.dccLowering && !o.optimizer.groupCommands) unread.emplace_back("--no-group-commands");
  if (!reads.labelModels && o.model != LabelModel::PimScope) unread.emplace_back("--model");
  if (!reads.crossbarTiming && o.sim.crossbarTiming != xbar::TimingModel::PimcompNn)
    unread.emplace_back("--timing");
  return unread;
}

Draft candidateOf(const Problem& p, std::uint64_t id) {
  return targetOf(p.backend()).candidates(p)->candidate(id);
}

std::string unsupportedReason(const Backend& b, const Kernel& k) { return joined(targetOf(b).check(b, k)); }

}  // namespace pim
