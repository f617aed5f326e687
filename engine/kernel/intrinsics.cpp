// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/intrinsics.h"

#include <algorithm>

#include "engine/kernel/kernel.h"

namespace pim {

const std::vector<IntrinsicInfo>& intrinsics() {
  static const std::vector<IntrinsicInfo> all = {
      {Intrinsic::Select, "select", 1, false, "select(value, loop)",
       "filtered append: the values with their lowest bit set, packed in order"},
      {Intrinsic::Unique, "unique", 1, false, "unique(value, loop)",
       "the values that differ from the one before them, packed in order"},
      {Intrinsic::Prefix, "prefix", 1, false, "prefix(value, loop)", "inclusive prefix sum along the loop"},
      {Intrinsic::Hist, "hist", 1, true, "hist(value, bin loop, value range)",
       "indexed increment: one counter per value, the bin value * bins / range"},
      {Intrinsic::Search, "search", 2, false, "search(sorted, key, loop)",
       "sorted search: the position of key in the sorted operand, -1 if absent"},
  };
  return all;
}

std::optional<IntrinsicInfo> intrinsicNamed(std::string_view name) {
  for (const IntrinsicInfo& i : intrinsics())
    if (i.name == name) return i;
  return std::nullopt;
}

namespace {

bool callsAnIntrinsic(const Expr& e) {
  if (e.kind == Expr::Kind::Call && intrinsicNamed(e.op)) return true;
  return std::any_of(e.args.begin(), e.args.end(), callsAnIntrinsic);
}

}  // namespace

std::optional<Intrinsic> intrinsicOf(const Statement& s) {
  if (s.value.kind != Expr::Kind::Call) return std::nullopt;
  const auto i = intrinsicNamed(s.value.op);
  return i ? std::optional(i->id) : std::nullopt;
}

std::string intrinsicMisuse(const Kernel& k, const Statement& s) {
  const auto id = intrinsicOf(s);
  if (!id) {
    for (const Expr& a : s.value.args)
      if (callsAnIntrinsic(a))
        return "a data-dependent intrinsic (select, unique, prefix, hist, search) must be the whole value of "
               "its statement";
    return {};
  }
  const IntrinsicInfo info = *intrinsicNamed(s.value.op);
  for (const Expr& a : s.value.args)
    if (callsAnIntrinsic(a)) return std::string(info.signature) + ": an intrinsic cannot take another one";
  const std::string name(info.name);
  const std::string loop = k.loops[static_cast<std::size_t>(s.value.reduceVar)].var;
  const bool indexes = s.targetUses(s.value.reduceVar);
  switch (*id) {
    case Intrinsic::Select:
    case Intrinsic::Unique:
    case Intrinsic::Prefix:
      if (s.op != AssignOp::Set) return name + " assigns its result with '=', not an accumulation";
      if (!indexes) return name + " runs along '" + loop + "', which must index the target";
      return {};
    case Intrinsic::Hist:
      if (s.op != AssignOp::Add) return "hist counts into its target with '+='";
      if (!indexes) return "hist: its bin loop '" + loop + "' must index the target";
      if (s.reducedLoops().empty())
        return "hist needs a loop over the values it counts (one the target lacks)";
      return {};
    case Intrinsic::Search:
      if (s.op != AssignOp::Max) return "search gives its position with 'max=' (-1 where the key is absent)";
      if (indexes) return "search runs along '" + loop + "', which must not index the target";
      return {};
  }
  return {};
}

}  // namespace pim
