// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/index_set.h"

#include <algorithm>

namespace pim {
namespace {
// Above this many indices a non-range union is approximated by its covering range.
constexpr std::int64_t kExactUnionLimit = 1 << 16;
}  // namespace

std::string IndexSet::str() const {
  if (count == 0) return "{}";
  if (contiguous()) return "[" + std::to_string(lo()) + ":" + std::to_string(hi()) + ")";
  if (count <= 4) {
    std::string out = "{";
    for (std::int64_t i = 0; i < count; ++i) out += (i ? "," : "") + std::to_string(start + i * stride);
    return out + "}";
  }
  return "{" + std::to_string(start) + "," + std::to_string(start + stride) + ",...," +
         std::to_string(start + stride * (count - 1)) + "}";
}

std::int64_t IndexUnion::count() const {
  std::int64_t n = 0;
  for (const auto& p : parts) n += p.count;
  return n;
}
std::int64_t IndexUnion::lo() const { return parts.empty() ? 0 : parts.front().lo(); }
std::int64_t IndexUnion::hi() const {
  std::int64_t h = 0;
  for (const auto& p : parts) h = std::max(h, p.hi());
  return h;
}

std::string IndexUnion::str() const {
  if (parts.empty()) return "{}";
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += " ";
    out += p.count == 1 ? "[" + std::to_string(p.start) + "]" : p.str();
  }
  return out;
}

IndexUnion unite(const std::vector<IndexSet>& sets, bool* exact) {
  if (exact) *exact = true;
  thread_local std::vector<IndexSet> nonEmpty;  // scratch: unions are taken for every core of every draft
  nonEmpty.clear();
  bool allRanges = true;
  for (const auto& s : sets) {
    if (!s.empty() && std::find(nonEmpty.begin(), nonEmpty.end(), s) == nonEmpty.end()) {
      nonEmpty.push_back(s);
      allRanges = allRanges && s.contiguous();
    }
  }
  IndexUnion u;
  if (nonEmpty.empty()) return u;
  if (nonEmpty.size() == 1) {
    // One progression with gaps is kept as its single elements when short, which is how DCC writes it.
    const auto& s = nonEmpty[0];
    if (s.contiguous() || s.count > 8) {
      u.parts.push_back(s);
    } else {
      for (std::int64_t i = 0; i < s.count; ++i) u.parts.push_back({s.start + i * s.stride, 1, 1});
    }
    return u;
  }
  if (allRanges) {
    // Ranges merge exactly (touching ones too) without listing their elements.
    std::sort(nonEmpty.begin(), nonEmpty.end(), [](auto& a, auto& b) { return a.lo() < b.lo(); });
    for (const auto& s : nonEmpty) {
      if (!u.parts.empty() && s.lo() <= u.parts.back().hi()) {
        u.parts.back() = IndexSet::range(u.parts.back().lo(), std::max(u.parts.back().hi(), s.hi()));
      } else {
        u.parts.push_back(s.expanded());
      }
    }
    return u;
  }
  std::int64_t total = 0;
  for (const auto& s : nonEmpty) total += s.count;
  if (total > kExactUnionLimit) {
    std::int64_t lo = nonEmpty[0].lo(), hi = nonEmpty[0].hi();
    for (const auto& s : nonEmpty) {
      lo = std::min(lo, s.lo());
      hi = std::max(hi, s.hi());
    }
    if (exact) *exact = false;
    u.parts.push_back(IndexSet::range(lo, hi));
    return u;
  }
  std::vector<std::int64_t> all;
  all.reserve(total);
  for (const auto& s : nonEmpty) {
    for (std::int64_t i = 0; i < s.count; ++i) all.push_back(s.start + i * s.stride);
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i + 1;
    while (j < all.size() && all[j] == all[j - 1] + 1) ++j;
    u.parts.push_back(IndexSet::range(all[i], all[j - 1] + 1));
    i = j;
  }
  return u;
}

}  // namespace pim
