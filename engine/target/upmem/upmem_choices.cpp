// SPDX-License-Identifier: Apache-2.0
#include "engine/target/upmem/upmem_choices.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/kernel/intrinsics.h"

namespace pim {
namespace {

constexpr const char* kTasklets = "tasklets";
constexpr const char* kTile = "tile_bytes";
constexpr const char* kSplit = kTaskletSplitKey;
constexpr const char* kCode = "code";
constexpr const char* kHistogram = "histogram";
constexpr const char* kScan = "scan";
constexpr const char* kCache = "operand_caching";
// PrIM's RED: dpu_results_t, one 64-bit sum and a 64-bit cycle count per tasklet (upmem.md).
constexpr int kPrimResultRecordBytes = 16;

// `own` first, then the others in order, each once.
ChoiceAxis axisOf(const char* key, const char* label, std::int64_t own, const std::vector<std::int64_t>& all,
                  const std::string& unit) {
  ChoiceAxis a{key, label, {own}, {}};
  for (std::int64_t v : all)
    if (v != own) a.values.push_back(v);
  for (std::int64_t v : a.values) a.texts.push_back(std::to_string(v) + unit);
  return a;
}

bool calls(const Kernel& k, Intrinsic id) {
  return std::any_of(k.statements.begin(), k.statements.end(),
                     [id](const Statement& s) { return intrinsicOf(s) == id; });
}

// A two-valued axis with the backend's own value first.
ChoiceAxis twoWays(const char* key, const char* label, bool own, const char* no, const char* yes) {
  ChoiceAxis a{key, label, {own ? 1 : 0, own ? 0 : 1}, {}, false};
  for (std::int64_t v : a.values) a.texts.push_back(v ? yes : no);
  return a;
}

// A reduction whose outputs share an operand (the axis of KernelStyle::cacheOperands).
bool sharesOperands(const Kernel& k, const UpmemCodegenOptions& own) {
  const std::vector<StatementShape> shapes = upmemStatementShapes(k, own);
  return std::any_of(shapes.begin(), shapes.end(),
                     [](const StatementShape& sh) { return sh.reduces() && sh.mayShareOperands(); });
}

bool reduces(const Kernel& k) {
  return std::any_of(k.statements.begin(), k.statements.end(),
                     [](const Statement& s) { return !s.reducedLoops().empty(); });
}

}  // namespace

const char* taskletSplitText(TaskletSplit s) {
  switch (s) {
    case TaskletSplit::Outputs:
      return "tasklets take outputs";
    case TaskletSplit::Reduction:
      return "tasklets split reductions";
    case TaskletSplit::Auto:
      break;
  }
  return "tasklets by output count";
}

ChoiceAxes upmemChoiceAxes(const Kernel& k, const UpmemCodegenOptions& own) {
  std::vector<std::int64_t> tasklets, tiles;
  for (std::int64_t t : {1, 2, 4, 8, 12, 16, 20, 24})
    if (t <= own.maxTasklets) tasklets.push_back(t);
  for (std::int64_t b = 32; b <= own.dmaMaxBytes; b *= 2) tiles.push_back(b);
  ChoiceAxes axes = {axisOf(kTasklets, "tasklets", own.tasklets, tasklets, " tasklets"),
                     axisOf(kTile, "tile (B)", own.blockBytes, tiles, "-B tiles")};
  if (reduces(k)) {
    ChoiceAxis split{kSplit, "tasklet split", {}, {}, false};
    // The backend's own split first.
    split.values.push_back(static_cast<std::int64_t>(own.split));
    for (TaskletSplit s : {TaskletSplit::Auto, TaskletSplit::Outputs, TaskletSplit::Reduction})
      if (s != own.split) split.values.push_back(static_cast<std::int64_t>(s));
    for (std::int64_t v : split.values) split.texts.push_back(taskletSplitText(static_cast<TaskletSplit>(v)));
    axes.push_back(std::move(split));
  }
  // Whose code: generated (IMTP's passes decide its guards) or PrIM's hand-written kernels and host code.
  axes.push_back({kCode, "code", {own.style.handWritten ? 1 : 0, own.style.handWritten ? 0 : 1}, {}, false});
  for (std::int64_t v : axes.back().values) axes.back().texts.push_back(v ? "PrIM's code" : "generated code");
  // PrIM's two histograms (HST-S, HST-L) and two scans (SCAN-SSA, SCAN-RSS).
  if (calls(k, Intrinsic::Hist))
    axes.push_back(twoWays(kHistogram, "histogram", own.sharedHistogram, "a histogram per tasklet (HST-S)",
                           "one shared histogram (HST-L)"));
  if (calls(k, Intrinsic::Prefix))
    axes.push_back(
        twoWays(kScan, "scan", own.scanReducesFirst, "scan, then add (SSA)", "reduce, then scan (RSS)"));
  // Last, so that adding it left every earlier candidate's id as it was.
  if (sharesOperands(k, own))
    axes.push_back(
        twoWays(kCache, "shared operands", own.style.cacheOperands, "streamed per output", "kept in WRAM"));
  return axes;
}

UpmemCodegenOptions withPrimCode(UpmemCodegenOptions o) {
  o.style.handWritten = true;
  o.taskletResultBytes = kPrimResultRecordBytes;
  return o;
}

UpmemCodegenOptions upmemChoicesOf(const CandidateIds& ids, std::uint64_t id, UpmemCodegenOptions own) {
  own.tasklets = static_cast<int>(ids.value(id, kTasklets, own.tasklets));
  own.blockBytes = static_cast<int>(ids.value(id, kTile, own.blockBytes));
  own.split = static_cast<TaskletSplit>(ids.value(id, kSplit, static_cast<std::int64_t>(own.split)));
  own.sharedHistogram = ids.value(id, kHistogram, own.sharedHistogram ? 1 : 0) != 0;
  own.scanReducesFirst = ids.value(id, kScan, own.scanReducesFirst ? 1 : 0) != 0;
  own.style.cacheOperands = ids.value(id, kCache, own.style.cacheOperands ? 1 : 0) != 0;
  if (ids.value(id, kCode, own.style.handWritten ? 1 : 0) != 0) return withPrimCode(own);
  own.style.handWritten = false;
  own.taskletResultBytes = 0;
  return own;
}

std::optional<std::uint64_t> upmemCandidateId(const CandidateIds& ids, std::uint64_t draft,
                                              const UpmemCodegenOptions& o) {
  if (ids.axes().empty()) return std::nullopt;  // no choices addressable (ids would overflow)
  std::vector<int> choice;
  for (const ChoiceAxis& a : ids.axes()) {
    const std::int64_t want = a.key == kTasklets    ? o.tasklets
                              : a.key == kTile      ? o.blockBytes
                              : a.key == kSplit     ? static_cast<std::int64_t>(o.split)
                              : a.key == kHistogram ? (o.sharedHistogram ? 1 : 0)
                              : a.key == kScan      ? (o.scanReducesFirst ? 1 : 0)
                              : a.key == kCache     ? (o.style.cacheOperands ? 1 : 0)
                                                    : (o.style.handWritten ? 1 : 0);  // code
    const auto it = std::find(a.values.begin(), a.values.end(), want);
    if (it == a.values.end()) return std::nullopt;
    choice.push_back(static_cast<int>(it - a.values.begin()));
  }
  return ids.id(draft, choice);
}

}  // namespace pim
