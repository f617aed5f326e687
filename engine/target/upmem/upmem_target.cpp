// SPDX-License-Identifier: Apache-2.0
#include "engine/target/upmem/upmem_target.h"

#include "engine/common/error.h"
#include "engine/hw/backend.h"

namespace pim {
namespace {

constexpr const char* kNoCostModel =
    "UPMEM DPUs are programmed, not driven by DRAM commands, and their cost model (DPU pipeline and DMA, "
    "CoMoNM) is not built yet";

class UpmemTarget final : public ITarget {
 public:
  UpmemTarget() : m_schema(dccLevelsSchema()) {
    m_schema.sections.insert(m_schema.sections.end(), {"pim", "energy"});
    m_schema.openSections = {"pim", "energy"};
  }
  std::string_view family() const override { return "upmem"; }
  std::string_view description() const override {
    return "UPMEM: a 350 MHz in-order DPU with WRAM and MRAM per DRAM bank, 64 per rank";
  }
  const BackendSchema& schema() const override { return m_schema; }
  using ITarget::check;
  std::vector<std::string> check(const Backend&, const Kernel&) const override { return {kNoCostModel}; }
  Evaluation evaluate(const Problem& p, const Draft&, const EvalOptions&) const override {
    throw InputError(p.kernel().name + " cannot run on " + p.backend().name + ": " + kNoCostModel);
  }
  std::string listing(const Problem& p, const Draft&, const EvalOptions&, std::size_t) const override {
    throw InputError(p.backend().name + ": no DPU program listing: " + kNoCostModel);
  }
  Baseline vendor(const Problem&, const EvalOptions&) const override {
    return {"vendor", false, std::string("no PrIM schedule is modelled: ") + kNoCostModel, "", {}, {}};
  }
  Baseline gpu(const Problem&) const override {
    return {"gpu", false, "UPMEM DIMMs sit beside a CPU host, not a GPU", "", {}, {}};
  }
  UnitGeometry geometry(const Backend& b) const override {
    return UnitGeometry::grid("rank", "DPU", b.totalGroups(), b.coresPerGroup());
  }
  const std::vector<StatDecl>& statistics() const override {
    static const std::vector<StatDecl> none;  // the DPU model declares its statistics
    return none;
  }
  int modelVersion() const override { return 1; }

 private:
  BackendSchema m_schema;
};

}  // namespace

std::unique_ptr<ITarget> makeUpmemTarget() { return std::make_unique<UpmemTarget>(); }

}  // namespace pim
