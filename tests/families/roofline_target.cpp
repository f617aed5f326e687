// SPDX-License-Identifier: Apache-2.0
#include "tests/families/roofline_target.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/common/error.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/target/registry.h"

namespace pim::test {
namespace {

/// The family (and its one backend) only the tests register.
constexpr const char* kFamily = "roofline-test";

/// What one core does for one draft: bytes it holds, operations it executes.
struct CoreWork {
  double bytes = 0, inputBytes = 0, outputBytes = 0, ops = 0;
};

/// The family's own candidate space: DCC's drafts and rules, then a rule of its own, "all-chips": every chip
/// is an independent roofline with its own link to the host, so a draft that leaves a chip idle is not
/// considered. It shows the contract (counts, stream, decode, why not) a family space fulfils.
class AllChipsSpace final : public ICandidateSpace {
 public:
  AllChipsSpace(const Problem& p, std::vector<bool> enabled, const PruneRuleRegistry& rules)
      : m_dcc(p.space(), std::move(enabled), rules),
        m_chips(p.backend().totalGroups()),
        m_number(static_cast<int>(rules.size()) + 1) {}
  std::uint64_t size() const override { return m_dcc.size(); }
  Draft candidate(std::uint64_t id) const override { return m_dcc.candidate(id); }
  std::string label(const Draft& d) const override { return m_dcc.label(d); }
  PruneCounts counts() const override {
    PruneCounts c = m_dcc.counts();
    RuleCount own{m_number, "all-chips", true, 0};
    m_dcc.forEachKept([&](const Draft& d) {
      own.removed += !usesAllChips(d);
      return true;
    });
    c.remaining -= own.removed;
    c.rules.push_back(own);
    return c;
  }
  void forEachKept(const std::function<bool(const Draft&)>& fn) const override {
    m_dcc.forEachKept([&](const Draft& d) { return !usesAllChips(d) || fn(d); });
  }
  Verdict why(std::uint64_t id) const override {
    Verdict v = m_dcc.why(id);
    if (!v.kept || usesAllChips(m_dcc.candidate(id))) return v;
    v.kept = false;
    v.rule = m_number;
    v.ruleName = "all-chips";
    v.reason = "leaves chips idle: its parts use fewer than all " + std::to_string(m_chips) + " chips";
    return v;
  }

 private:
  bool usesAllChips(const Draft& d) const {
    int chips = 1;
    for (const PartChoice& c : d.parts) chips *= c.groups;
    return chips == m_chips;
  }
  DraftCandidateSpace m_dcc;
  int m_chips, m_number;
};

class RooflineTarget final : public ITarget {
 public:
  RooflineTarget() : m_schema(dccLevelsSchema()) {
    m_schema.sections.push_back("roofline");
    for (const char* key :
         {"roofline.coreGops", "roofline.coreGBps", "roofline.opEnergyPj", "roofline.ioEnergyPjPerByte"})
      m_schema.params.push_back({key, ParamDecl::Kind::Real, 0, true});
  }
  std::string_view family() const override { return kFamily; }
  std::string_view description() const override {
    return "test family: cores as rooflines (compute peak, local bandwidth), analytic";
  }
  const BackendSchema& schema() const override { return m_schema; }

  using ITarget::check;
  std::vector<std::string> check(const Backend& b, const Kernel& k) const override {
    std::vector<std::string> reasons;
    for (const Tensor& t : k.tensors)
      if (std::find(b.core.dtypes.begin(), b.core.dtypes.end(), t.dtype) == b.core.dtypes.end())
        reasons.push_back("tensor " + t.name + ": no " + std::string(dtypeName(t.dtype)) + " on the cores");
    return reasons;
  }

  std::unique_ptr<ICandidateSpace> candidates(const Problem& p, std::vector<bool> enabled,
                                              const PruneRuleRegistry& rules) const override {
    return std::make_unique<AllChipsSpace>(p, std::move(enabled), rules);
  }

  /// The compute phase is the slowest core's roofline: its operations at peak, and the time its local
  /// memory keeps it waiting beyond that.
  const std::vector<SubPhaseDecl>& subPhases() const override {
    static const std::vector<SubPhaseDecl> phases = {
        {"operations", "operations", 1, "the slowest core's operations at its peak rate"},
        {"memory_stall", "local-memory stall", 1, "the slowest core's wait for its local memory beyond that"},
    };
    return phases;
  }

  Evaluation evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const override {
    requireRunnable(p);
    const TileMapping m = mapDraft(p.space(), d, o.indexing);
    const std::vector<CoreWork> work = workOf(p, m);
    const Backend& b = p.backend();
    const double gops = b.param("roofline.coreGops")->value, gbps = b.param("roofline.coreGBps")->value;
    const double host = b.system.hostBandwidthGBps;
    Evaluation e;
    e.draft = d.id;
    e.provenance = Provenance::Analytic;
    double in = 0, out = 0, compute = 0, ops = 0, criticalOpsNs = 0;
    UnitStatistics& s = e.unitStats;
    s.statCount = statistics().size();
    s.values.assign(static_cast<std::size_t>(geometry(b).units()) * s.statCount, 0.0);
    for (std::size_t u = 0; u < work.size() && u * s.statCount < s.values.size(); ++u) {
      const CoreWork& w = work[u];
      const double busyNs = std::max(w.ops / gops, w.bytes / gbps);  // GOP/s = op/ns, GB/s = byte/ns
      if (busyNs > compute) compute = busyNs, criticalOpsNs = w.ops / gops;
      in += w.inputBytes;
      out += w.outputBytes;
      ops += w.ops;
      e.unitsUsed += w.ops > 0;
      e.placedBytes += static_cast<std::int64_t>(w.bytes);
      const double row[] = {w.bytes, w.ops, busyNs};
      std::copy(std::begin(row), std::end(row), s.values.begin() + static_cast<long>(u * s.statCount));
    }
    e.cycles = {static_cast<std::int64_t>(std::ceil(in / host)),
                static_cast<std::int64_t>(std::ceil(compute)),
                static_cast<std::int64_t>(std::ceil(out / host))};
    e.subCycles = {static_cast<std::int64_t>(std::ceil(criticalOpsNs)), 0};
    e.subCycles[1] = e.cycles[1] - e.subCycles[0];
    e.tCKns = 1.0;
    e.totalCycles = e.cycles[0] + e.cycles[1] + e.cycles[2];
    e.timeNs = static_cast<double>(e.totalCycles);
    e.energy.pimCompute_pJ = ops * b.param("roofline.opEnergyPj")->value;
    e.energy.hostIo_pJ = (in + out) * b.param("roofline.ioEnergyPjPerByte")->value;
    e.energy.sources = {{"pim_compute", "test: roofline.opEnergyPj"},
                        {"host_io", "test: roofline.ioEnergyPjPerByte"}};
    e.energyPj = e.energy.total_pJ();
    return e;
  }

  std::string listing(const Problem& p, const Draft& d, const EvalOptions& o,
                      std::size_t maxLines) const override {
    const TileMapping m = mapDraft(p.space(), d, o.indexing);
    const std::vector<CoreWork> work = workOf(p, m);
    std::ostringstream s;
    for (std::size_t u = 0; u < work.size() && u < maxLines; ++u)
      s << "chip " << m.cores[u].group << " core " << m.cores[u].core << ": load " << work[u].inputBytes
        << " B, " << work[u].ops << " ops, store " << work[u].outputBytes << " B\n";
    return s.str();
  }

  Baseline vendor(const Problem&, const EvalOptions&) const override {
    return {"vendor", false, "the roofline test family has no vendor library", "", {}, {}};
  }
  Baseline gpu(const Problem&) const override {
    return {"gpu", false, "the roofline test family sits beside no GPU", "", {}, {}};
  }

  UnitGeometry geometry(const Backend& b) const override {
    return UnitGeometry::grid("chip", "core", b.totalGroups(), b.coresPerGroup());
  }
  const std::vector<StatDecl>& statistics() const override {
    static const std::vector<StatDecl> stats = {
        {"bytes", "bytes", "bytes", "bytes of the core's tiles in its local memory"},
        {"ops", "operations", "count", "operations the core executes"},
        {"busy_ns", "busy time", "ns", "the core's roofline time: max(ops / peak, bytes / bandwidth)", false},
    };
    return stats;
  }
  int modelVersion() const override { return 1; }

 private:
  /// Per core of the mapping (group-major, as the geometry's units): bytes held and operations executed.
  static std::vector<CoreWork> workOf(const Problem& p, const TileMapping& m) {
    const Kernel& k = p.kernel();
    std::vector<CoreWork> work(m.cores.size());
    for (std::size_t u = 0; u < m.cores.size(); ++u) {
      const CoreTile& c = m.cores[u];
      if (c.idle) continue;
      double iterations = 1;
      for (const IndexSet& s : c.computeTile) iterations *= static_cast<double>(s.count);
      work[u].ops = iterations;
      for (std::size_t t = 0; t < k.tensors.size() && t < c.tensors.size(); ++t) {
        const double bytes =
            static_cast<double>(c.tensors[t].elements) * static_cast<double>(dtypeBytes(k.tensors[t].dtype));
        work[u].bytes += bytes;
        (k.tensors[t].role == TensorRole::Input ? work[u].inputBytes : work[u].outputBytes) += bytes;
      }
    }
    return work;
  }

  BackendSchema m_schema;
};

}  // namespace

const Backend& registerRooflineFamily() {
  static const Backend& backend = []() -> const Backend& {
    registerTarget(std::make_unique<RooflineTarget>());
    registerBackend(loadBackendFile(PIMSCOPE_TEST_FAMILIES_DIR "/roofline-test.json"));
    return builtinBackends().get("roofline-test");
  }();
  return backend;
}

std::vector<std::reference_wrapper<const Backend>> shippedBackends() {
  std::vector<std::reference_wrapper<const Backend>> out;
  for (const Backend& b : builtinBackends().all())
    if (b.family != kFamily) out.push_back(b);
  return out;
}

}  // namespace pim::test
