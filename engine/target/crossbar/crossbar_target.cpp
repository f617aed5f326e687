// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/crossbar_target.h"

#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/target/crossbar/crossbar_backend.h"

namespace pim {
namespace {

/// Why a kernel cannot run on a crossbar backend, with the command that does what the user wants. The reason
/// comes first: the window shows it beside the backend's name, cut to what fits.
std::string networksOnly(const Backend& b) {
  return "crossbar backends compile whole networks, not DCC kernels: `pimscope-cli compile --backend " +
         b.name + " --network resnet18` (`pimscope-cli networks` lists the shipped networks)";
}

class CrossbarTarget final : public ITarget {
 public:
  CrossbarTarget() : m_schema(crossbarSchema()) {}
  std::string_view family() const override { return "crossbar"; }
  std::string_view description() const override {
    return "crossbar (RRAM) accelerators holding a whole network's weights in their arrays, compiled "
           "PIMCOMP-style (pimscope-cli compile)";
  }
  const BackendSchema& schema() const override { return m_schema; }

  using ITarget::check;
  std::vector<std::string> check(const Backend& b, const Kernel&) const override { return {networksOnly(b)}; }

  Evaluation evaluate(const Problem& p, const Draft&, const EvalOptions&) const override {
    throw InputError(networksOnly(p.backend()));
  }
  std::string listing(const Problem& p, const Draft&, const EvalOptions&, std::size_t) const override {
    return networksOnly(p.backend());
  }
  Baseline vendor(const Problem& p, const EvalOptions&) const override {
    return {"vendor", false, networksOnly(p.backend()), "", {}, {}};
  }
  Baseline gpu(const Problem&) const override {
    return {"gpu", false, "a crossbar accelerator models no host GPU", "", {}, {}};
  }
  // core.outOfOrder and chip.synchronousCommunication are read by the intended timing mode (the pimcomp-nn
  // mode runs PIMCOMP-NN's patterns whatever they say); the mode is a compile option, not part of the
  // backend, so they are not unread: the what-if form must let them be edited for an intended compile.
  std::vector<UnreadParameter> unreadParameters(const Backend&) const override {
    return {{"chip.globalMemoryBytes", "reported with the backend; no schedule is bounded by global memory"}};
  }
  /// Chips x cores per chip, as configured.
  UnitGeometry geometry(const Backend& b) const override {
    const crossbar::Accelerator a = acceleratorOf(b);
    return UnitGeometry::grid("chip", "core", static_cast<int>(a.chips),
                              static_cast<int>(a.cores() / a.chips));
  }
  const std::vector<StatDecl>& statistics() const override {
    static const std::vector<StatDecl> none;
    return none;
  }
  SearchSettings searchSettings() const override {
    return {.residency = false, .pruneRules = false, .dccLowering = false, .labelModels = false};
  }
  int modelVersion() const override { return 1; }

 private:
  BackendSchema m_schema;
};

}  // namespace

std::unique_ptr<ITarget> makeCrossbarTarget() { return std::make_unique<CrossbarTarget>(); }

}  // namespace pim
