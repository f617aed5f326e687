// SPDX-License-Identifier: Apache-2.0
// Data-dependent intrinsics (PrIM's SEL, UNI, HST, SCAN and BS; upmem.md): calls with a declared meaning and
// cost structure, not general control flow. Each names the loop it runs along (as softmax names the loop it
// normalises over), so the affine loop nest, the drafts that tile it and the transfers that move its tiles
// stay what they are for every other kernel; what depends on the data is confined to the call.
//
//   y[i] = select(v, i)         filtered append along i: the v whose lowest bit is set (PrIM SEL's
//                               predicate keeps odd values), packed in order at the start of y
//   y[i] = unique(v, i)         the v that differ from the v before them along i, packed likewise (UNI)
//   y[i] = prefix(v, i)         inclusive prefix sum of v along i (SCAN)
//   h[k] += hist(v, k, D)       1 where v, a value in [0, D), falls in bin k of k's extent (bin = v * bins /
//   D;
//                               HST): with a reduction over the pixels it is a histogram, one counter
//                               incremented per pixel, not a loop over the bins
//   y[q] max= search(a, key, j) j where a == key, else -1 (BS): with max= over j it is the position of key in
//                               a sorted a, found by bisection, not a loop over j
// Backends without a template for an intrinsic refuse it by name (the DRAM-PIM families: a result's
// position or the bin it increments depends on the data, which no broadcast command can address).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pim {

enum class Intrinsic : std::uint8_t { Select, Unique, Prefix, Hist, Search };

struct IntrinsicInfo {
  Intrinsic id;
  std::string_view name;
  int valueArgs;               // value operands before the loop variable
  bool constantAfterLoop;      // a constant follows the loop variable (hist's value range D)
  std::string_view signature;  // for messages: "select(value, loop)"
  std::string_view meaning;    // one line, for listings and refusals
};

/// Every intrinsic, in declaration order.
const std::vector<IntrinsicInfo>& intrinsics();
/// The intrinsic called `name`, if it is one.
std::optional<IntrinsicInfo> intrinsicNamed(std::string_view name);

struct Kernel;
struct Statement;
/// The intrinsic statement `s` calls (its value is the call), if any.
std::optional<Intrinsic> intrinsicOf(const Statement& s);
/// Why statement `s` of `k` uses an intrinsic against its form (the call nested in an expression, the wrong
/// assignment, its loop indexing the target or not), empty if it uses none or uses it rightly.
std::string intrinsicMisuse(const Kernel& k, const Statement& s);

}  // namespace pim
