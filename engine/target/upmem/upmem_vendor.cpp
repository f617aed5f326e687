// SPDX-License-Identifier: Apache-2.0
#include "engine/target/upmem/upmem_vendor.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "engine/common/error.h"
#include "engine/kernel/intrinsics.h"
#include "engine/target/upmem/upmem_choices.h"

namespace pim {
namespace {

struct Split {
  int part = -1;
  PartChoice choice;
  std::int64_t extent = 0;
  std::string what;  // "W's axis 0"
};

// The part and representative that split the outermost axis (longer than 1) of the largest tensor (of a
// search's keys).
std::optional<Split> primSplit(const Problem& p) {
  const Kernel& k = p.kernel();
  // Tensors largest first; PrIM's BS splits the keys and copies the sorted array whole to every DPU, so a
  // search's output comes first.
  std::vector<std::pair<std::int64_t, int>> bySize;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    std::int64_t n = 1;
    for (auto e : tensorExtents(k, static_cast<int>(t), p.shape())) n *= e;
    bySize.emplace_back(-n, static_cast<int>(t));
  }
  for (const Statement& st : k.statements)
    if (intrinsicOf(st) == Intrinsic::Search)
      for (auto& [n, t] : bySize)
        if (t == st.target.tensor) n = std::numeric_limits<std::int64_t>::min();
  std::stable_sort(bySize.begin(), bySize.end());
  const auto& sets = p.space().sets().sets;
  // The first tensor with an axis the drafts can split (a sliding window's input, indexed by i + j, has
  // none: PrIM's TS then splits its windows, the output's axis).
  for (const auto& [negSize, t] : bySize) {
    const auto extents = tensorExtents(k, t, p.shape());
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
      if (extents[axis] <= 1) continue;
      for (std::size_t s = 0; s < sets.size(); ++s)
        for (std::size_t c = 0; c < sets[s].candidates.size(); ++c) {
          const auto& cand = sets[s].candidates[c];
          if (cand.tensor != t || cand.axis != static_cast<int>(axis)) continue;
          Split sp;
          sp.part = static_cast<int>(s);
          sp.choice.rep = static_cast<int>(c);
          sp.extent = extents[axis];
          sp.what = k.tensors[static_cast<std::size_t>(t)].name + "'s axis " + std::to_string(axis);
          return sp;
        }
    }
  }
  return std::nullopt;
}

// The draft that puts PrIM's split on `dpus` DPUs, filling ranks first; nullopt when no ranks x DPUs per
// rank makes that count.
std::optional<Draft> primDraft(const Problem& p, const Split& split, std::int64_t dpus) {
  const Resources& res = p.space().resources();
  std::vector<PartChoice> parts(static_cast<std::size_t>(p.space().partCount()));
  PartChoice& c = parts[static_cast<std::size_t>(split.part)];
  c = split.choice;
  c.cores = static_cast<int>(std::min<std::int64_t>(dpus, res.coresPerGroup));
  c.groups = static_cast<int>(dpus / c.cores);
  if (std::int64_t{c.groups} * c.cores != dpus || c.groups > res.groups) return std::nullopt;
  return p.space().draft(p.space().idOf(parts));
}

// PrIM's split of a problem the target can run; nullopt with `v.reason` saying why not.
std::optional<Split> primSplitOrReason(const ITarget& self, const Problem& p, Baseline& v) {
  if (const auto why = self.check(p); !why.empty()) {
    v.reason = why.front();
    return std::nullopt;
  }
  auto split = primSplit(p);
  if (!split)
    v.reason = "no PrIM schedule: no axis of " + p.kernel().name + "'s tensors can be split over DPUs";
  return split;
}

// `d` as the candidate run with `o`'s choices (its own id when the axes cannot say them).
Draft withChoices(const CandidateIds& ids, Draft d, const UpmemCodegenOptions& o) {
  if (const auto id = upmemCandidateId(ids, d.id, o)) d.id = *id;
  return d;
}

}  // namespace

Baseline primBaseline(const ITarget& self, const Problem& p, const CandidateIds& ids,
                      const UpmemCodegenOptions& prim, const UpmemRunner& run, int dpus) {
  const std::string choices =
      std::to_string(prim.tasklets) + " tasklets, " + std::to_string(prim.blockBytes) + "-B blocks";
  Baseline v;
  v.name = "vendor";
  const auto split = primSplitOrReason(self, p, v);
  if (!split) return v;
  const Resources& res = p.space().resources();
  const std::int64_t available = std::int64_t{res.groups} * res.coresPerGroup;
  auto keep = [&](const Draft& draft, std::int64_t n, const char* how) {
    const Draft d = withChoices(ids, draft, prim);
    Evaluation e = run(d, prim);
    if (v.available && e.totalCycles >= v.eval.totalCycles) return;
    v.available = true;
    v.eval = std::move(e);
    v.draft = d;
    v.summary = "PrIM: " + split->what + " over " + std::to_string(n) + " DPUs (" + how + "), " + choices +
                ", PrIM's output assignment: " + p.space().label(d);
  };
  if (dpus > 0) {  // PrIM's NR_DPUS, as given
    const std::string lead = "no PrIM schedule on " + std::to_string(dpus) + " DPUs: ";
    if (dpus > available) {
      v.reason = lead + "the backend has " + std::to_string(available) + " (" + std::to_string(res.groups) +
                 " ranks x " + std::to_string(res.coresPerGroup) + ")";
    } else if (dpus > split->extent) {
      v.reason = lead + split->what + " has only " + std::to_string(split->extent) + " indices to split";
    } else {
      try {
        if (const auto d = primDraft(p, *split, dpus))
          keep(*d, dpus, "as given");
        else
          v.reason = lead + "every rank takes the same number of DPUs, at most " +
                     std::to_string(res.coresPerGroup) + ", so a count above that must be a multiple of it";
      } catch (const InputError& e) {
        v.reason = lead + e.what();
      }
    }
    return v;
  }
  std::string lastError;
  for (std::int64_t n = 1; n <= available && n <= split->extent; n *= 2) {
    try {
      const auto d = primDraft(p, *split, n);
      if (!d) break;
      keep(*d, n, "the fastest power of two");
    } catch (const InputError& e) {
      lastError = e.what();  // this DPU count does not fit (MRAM); more DPUs may
    }
  }
  if (!v.available) v.reason = "no PrIM schedule fits: " + lastError;
  return v;
}

Baseline primSearchBaseline(const ITarget& self, const Problem& p, const CandidateIds& ids,
                            const UpmemCodegenOptions& base, const UpmemRunner& run) {
  Baseline v;
  v.name = "prim-search";
  const auto split = primSplitOrReason(self, p, v);
  if (!split) return v;
  const Resources& res = p.space().resources();
  int tried = 0, refused = 0;
  std::map<std::string, int> refusedBy;
  std::string lastError, best;
  for (std::int64_t n = 1; n <= std::int64_t{res.groups} * res.coresPerGroup && n <= split->extent; n *= 2) {
    std::optional<Draft> d;
    try {
      d = primDraft(p, *split, n);
    } catch (const InputError& e) {
      lastError = e.what();
      continue;
    }
    if (!d) break;
    for (int tasklets : {1, 2, 4, 8, 16}) {
      for (int block : {256, 512, 1024, 2048}) {
        UpmemCodegenOptions o = base;
        o.tasklets = tasklets;
        o.blockBytes = block;
        o.split = TaskletSplit::Outputs;
        ++tried;
        try {
          const Draft c = withChoices(ids, *d, o);
          Evaluation e = run(c, o);
          if (v.available && e.totalCycles >= v.eval.totalCycles) continue;
          v.available = true;
          v.eval = std::move(e);
          v.draft = c;
          best = split->what + " over " + std::to_string(n) + " DPUs, " + std::to_string(tasklets) +
                 " tasklets, " + std::to_string(block) + "-B blocks";
        } catch (const LimitError& e) {
          ++refused;  // the verifier refuses these choices: counted by the limits they break
          for (const LimitViolation& v : e.violations()) ++refusedBy[v.limit];
          lastError = e.what();
        } catch (const InputError& e) {
          ++refused;  // refused otherwise (the space, the host plan)
          ++refusedBy["other"];
          lastError = e.what();
        }
      }
    }
  }
  if (!v.available) {
    v.reason = "no PrIM schedule fits: " + lastError;
    return v;
  }
  std::string why;
  for (const auto& [limit, n] : refusedBy) why += (why.empty() ? "" : ", ") + limit + " " + std::to_string(n);
  v.summary = "PrIM+search: " + best + " (the fastest of " + std::to_string(tried - refused) + " runs; " +
              std::to_string(refused) + " choices refused by a limit" + (why.empty() ? "" : ": " + why) +
              "), PrIM's output assignment: " + p.space().label(*v.draft);
  return v;
}

}  // namespace pim
