// SPDX-License-Identifier: Apache-2.0
// Lowering of a mapped draft to the command program its backend executes (DCC sections 4.1 to 4.3):
// input rearrangement (host reads in host layout, writes into per-core contiguous bank regions), compute on
// the PIM cores (group-level broadcast commands over padded tiles, or bank-level commands), and output
// rearrangement (partial results read back, merged and written in host layout). One simulated channel per PIM
// group; one code generator per backend family emits the compute phase.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/evaluation.h"
#include "engine/core/problem.h"
#include "engine/mapping/footprints.h"
#include "sim/config.h"
#include "sim/program.h"

namespace pim {

/// What one statement makes a core do, from its tiles. Element counts are per core; for a group they are the
/// largest over its cores (the padded tile group commands work on).
struct StatementWork {
  enum class Kind : std::uint8_t { Mac, Reduce, Elementwise, Softmax };
  int statement = 0;
  Kind kind = Kind::Mac;
  int streamTensor = -1;     // operand streamed from the bank, one 32-B column per command
  int secondStream = -1;     // second streamed operand of an element-wise op, -1 if none
  int broadcastTensor = -1;  // operand held in buffers/registers (the vector of a GEMV), -1 if none
  std::int64_t streamElems = 0, broadcastElems = 0, outputElems = 0;
  bool operator==(const StatementWork&) const = default;
};
/// Work of every statement for a core whose tile holds `elements[t]` elements of tensor t.
std::vector<StatementWork> statementWork(const Kernel& k, std::span<const std::int64_t> elements);
/// The kinds of the statements alone (every count zero).
std::vector<StatementWork> statementKinds(const Kernel& k);
/// What a statement reads and does, independent of tile sizes: its target, its non-scalar operand tensors in
/// reference order, and its kind. Per kernel, so a draft's groups share one list.
struct StatementOperands {
  int target = -1;
  std::vector<int> operands;
  StatementWork::Kind kind = StatementWork::Kind::Mac;
};
std::vector<StatementOperands> statementOperands(const Kernel& k);
/// Per statement, the largest work over the group's cores.
std::vector<StatementWork> groupWork(const Kernel& k, const DraftFootprints& m, int group);
std::vector<StatementWork> groupWork(const std::vector<StatementOperands>& statements,
                                     const DraftFootprints& m, int group);

/// A reduction's tile on one bank as the hardware processes it: `rows` outputs, each summing one row of
/// `rowElems` elements that starts on a column of its own (segmented), so no column mixes two rows and a
/// unit's lanes hold one row at a time. What reduces the lanes is the family's (a GRF tree, an adder tree,
/// the host); a row split over cores leaves `partialsPerOutput` partial sums the host merges.
struct ReductionRows {
  int target = -1;  // the tensor the sums go to
  std::int64_t rows = 0;
  std::int64_t rowElems = 0;
  std::int64_t columnsPerRow = 0;  // 32-B columns of one segmented row
  std::int64_t partialsPerOutput = 1;
  std::int64_t banksPerRow = 1;  // banks of a core that share one row (fewer rows than banks)
  std::int64_t columns() const { return rows * columnsPerRow; }
};
/// Rows of reduction `w` per bank (a core's rows are split over its banks); zero rows for other kinds.
ReductionRows reductionRows(const Problem& p, const StatementWork& w, int bytesPerColumn);

/// Where each tensor's tile starts in every bank of a group (padded, so the same row in every bank) and where
/// the host-layout copy of the data lives.
struct BankRegions {
  std::vector<std::uint32_t> tensorRow;           // first row of each tensor's tile
  std::vector<std::int64_t> tensorBurstsPerBank;  // 32-B bursts of each tensor's padded tile in one bank
  std::uint32_t hostRow = 0;                      // first row of the host-layout region
  bool operator==(const BankRegions&) const = default;
};
class ICodeGenerator;
struct LoweringInput;
/// `work`: groupWork(kernel, mapping, group) when the caller has it (a used group's), else computed here.
BankRegions bankRegions(const LoweringInput& in, int group, const std::vector<StatementWork>* work = nullptr);
/// Whether every core of a group holds the same tile of tensor `t`: no part that splits one of t's axes gives
/// a group more than one core. One write can then reach all of the group's units.
bool sameTileOnEveryCore(const Problem& p, const Draft& d, int t);

/// Where a family whose units cannot sum lanes leaves a statement's results: one 32-B column of 16 lane
/// partial sums per accumulator written back, `columnsPerCore` of them, all in bank `bankOfCore` of the core;
/// the host reads them and adds.
struct LanePartials {
  std::int64_t columnsPerCore = 0;
  int bankOfCore = 0;
};

struct LoweringInput {
  const Problem& problem;
  const DraftFootprints& mapping;
  const sim::DeviceConfig& device;
  const ICodeGenerator& generator;  // of the backend's device (the DRAM-PIM target picks it)
  OptimizerOptions options;
  /// Lower the one-time placement of the resident inputs (host layout to the draft's banks, DCC's preLoad)
  /// instead of a call.
  bool preload = false;
};
/// Whether the host moves tensor `t` in what `in` lowers: a call moves the streamed tensors, a preload the
/// resident inputs.
bool movedByHost(const LoweringInput& in, int t);

/// Output tensors of a call that the host reads from the same banks of a group, consecutive in tensor order:
/// one copy. They differ where a family leaves one statement's results as lane partial sums in one bank of a
/// core and another's in every bank.
struct OutputRead {
  std::vector<int> banks;    // flat bank ids of the channel
  std::vector<int> tensors;  // consecutive moved outputs, in tensor order
  bool operator==(const OutputRead&) const = default;
};

/// Everything the lowering of one PIM group (one simulated channel) reads from the mapped draft. Code
/// generators see the draft only through it, so groups with equal views lower to the same channel program:
/// a draft is lowered once per distinct view (a handful), not once per group (up to 160).
struct GroupView {
  bool live = false;           // a group the draft uses; an idle one only holds its share of the host layout
  BankRegions regions;         // of this group, or of group 0 for an idle group (same rows, no tiles)
  std::vector<int> liveBanks;  // banks holding a live core's data, as flat bank ids of the channel
  std::vector<OutputRead> outputReads;  // what the host reads back, tensor by tensor (see rearrangement.h)
  std::vector<StatementWork> work;      // per statement, the largest over the group's cores (padded tiles)
  // With staged rearrangement: this channel's bursts of each input / output tensor in the host layout (the
  // low channels of the interleave hold one burst more than the others when a tensor does not fill a stripe).
  std::vector<std::int64_t> hostInput, hostOutput;
  bool operator==(const GroupView&) const = default;
};
/// Throws InputError when the group's tiles need more rows than a bank's PIM region.
GroupView groupView(const LoweringInput& in, int group);
/// The same with the kernel's statementOperands, computed once per draft by the caller.
GroupView groupView(const LoweringInput& in, int group, const std::vector<StatementOperands>& statements);

class ICodeGenerator {
 public:
  virtual ~ICodeGenerator() = default;
  /// Empty when the device can run `k`, else the reason ("AttAcc has no element-wise units").
  virtual std::string unsupportedReason(const Kernel& k) const = 0;
  /// Appends the compute phase of a live group (one simulated channel) to `out`.
  virtual void emitCompute(const LoweringInput& in, const GroupView& group,
                           sim::ProgramBuilder& out) const = 0;
  /// How the family's code reduces a row's lanes and writes the sums back, one line for the IR text.
  virtual std::string laneReduction(const LoweringInput& in, const ReductionRows& rows) const = 0;
  /// The lane partial sums statement `w` leaves for the host, or nullopt when the family writes back sums
  /// (the default: its output tile is packed).
  virtual std::optional<LanePartials> lanePartials(const Problem&, const StatementWork&,
                                                   int /*bytesPerColumn*/) const {
    return std::nullopt;
  }
  /// Bursts per bank of a core that the register operand of MAC `w` (its broadcastTensor) takes in the
  /// family's bank layout, or nullopt to store it packed like any tile (the default). Zero: the family writes
  /// it from the host straight into the units' registers during the call, so it is not placed in the banks.
  virtual std::optional<std::int64_t> registerOperandBursts(const LoweringInput&,
                                                            const StatementWork&) const {
    return std::nullopt;
  }
};

std::unique_ptr<ICodeGenerator> makeAttaccCodeGenerator();
std::unique_ptr<ICodeGenerator> makeHbmPimCodeGenerator();
std::unique_ptr<ICodeGenerator> makeHbm2PimCodeGenerator();
std::unique_ptr<ICodeGenerator> makeGddr6AimCodeGenerator();
/// Full program of a draft: staged input rearrangement (when enabled), compute, staged output rearrangement;
/// with LoweringInput::preload, the staged placement of its resident inputs alone. Identical channels share
/// one program. Naive rearrangement is not part of it (see rearrangement.h). The
/// kernel must be one the generator supports (the target checks it first).
sim::Program lowerDraft(const LoweringInput& in);
/// Every group's view of a draft, with the host shares of what its lowering moves (a call's or a preload's).
struct DraftViews {
  bool preload = false;  // LoweringInput::preload of the host shares
  std::vector<GroupView> groups;
};
/// A call and its preload differ only in the host shares, which lowerDraft sets again when they are the
/// other's: the views are computed once for both.
DraftViews groupViews(const LoweringInput& in);
/// lowerDraft with the views of the same draft (from groupViews() of the call or of its preload).
sim::Program lowerDraft(const LoweringInput& in, const DraftViews& views);
/// What the lowered code of the first live group does for each reduction (rows, segmentation, lane
/// reduction, write-back, the host's merge), as IR comment lines; empty without reductions.
std::string reductionText(const LoweringInput& in);

}  // namespace pim
