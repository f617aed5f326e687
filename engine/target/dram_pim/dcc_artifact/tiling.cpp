// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/dcc_artifact/tiling.h"

#include <algorithm>
#include <bit>
#include <map>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/int_math.h"

namespace pim::dcc {
namespace {

bool isPow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The recursive walk of generate_configs.py: parts are appended dimension by dimension while the groups and
/// cores left divide (integer division); leaves follow the 2-D or 3-D emit rule, deduplicated by the tuple of
/// per-core tiles (the first draft with a tuple is emitted, vendor patterns always).
class Generator {
 public:
  explicit Generator(std::span<const std::int64_t> dims) : m_dims(dims.begin(), dims.end()) {}

  std::vector<Tiling> run() {
    walk(0, kGroups, kCores);
    return std::move(m_out);
  }

 private:
  void walk(std::size_t dim, std::int64_t groupsLeft, std::int64_t coresLeft) {
    if (dim == m_dims.size()) return leaf(groupsLeft, coresLeft);
    const std::int64_t size = m_dims[dim];
    // Candidates run 1..left, stopping after the first one past the size; only a*b <= size is taken.
    const std::int64_t maxA = std::min(groupsLeft, size + 1), maxB = std::min(coresLeft, size + 1);
    auto visit = [&](std::int64_t a, std::int64_t b) {
      m_cur.push_back({a, b, ceilDiv(size, a * b)});
      walk(dim + 1, groupsLeft / a, coresLeft / b);
      m_cur.pop_back();
    };
    // 2-D kernels visit power-of-two pairs first (the search order decides which duplicate is kept).
    const bool alignedFirst = m_dims.size() == 2;
    for (int pass = alignedFirst ? 0 : 1; pass < 2; ++pass) {
      for (std::int64_t a = 1; a <= maxA; ++a) {
        for (std::int64_t b = 1; b <= maxB; ++b) {
          if (a * b > size) continue;
          const bool aligned = isPow2(a) && isPow2(b);
          if (alignedFirst && (pass == 0) != aligned) continue;
          visit(a, b);
        }
      }
    }
  }

  void leaf(std::int64_t groupsLeft, std::int64_t coresLeft) {
    std::vector<std::int64_t> tiles;
    for (const Part& p : m_cur) tiles.push_back(p.tile);
    const bool twoD = m_cur.size() == 2;
    const bool vendor = twoD ? (m_cur[0].groups == kGroups && m_cur[1].cores == kCores)
                             : (m_cur[0].groups == kGroups && m_cur[1].cores == 4 && m_cur[2].cores == 16);
    const bool fills = twoD ? (groupsLeft == 1 && coresLeft <= 4)
                            : (groupsLeft == 1 && coresLeft == 1 && m_cur[1].tile >= 16);
    if (vendor) {
      m_out.push_back(m_cur);
      m_seen.emplace(tiles, true);
    } else if (fills && m_seen.emplace(tiles, true).second) {
      m_out.push_back(m_cur);
    }
  }

  std::vector<std::int64_t> m_dims;
  Tiling m_cur;
  std::vector<Tiling> m_out;
  std::map<std::vector<std::int64_t>, bool> m_seen;
};

void appendAbsent(std::vector<Tiling>& out, const Tiling& t) {
  if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
}

}  // namespace

std::string tilingLabel(const Tiling& t) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < t.size(); ++i)
    os << (i ? ", " : "") << "(" << t[i].groups << ", " << t[i].cores << ", " << t[i].tile << ")";
  os << "]";
  return os.str();
}

bool keepsItsCounts(const Tiling& t) {
  if (t.size() == 3)
    return t[0].cores == 1 && t[1].groups == 1 && t[1].cores == 4 && t[2].groups == 1 && t[2].cores == 16;
  if (t.size() == 2) return t[0].cores == 1 && t[1].groups == 1 && t[1].cores == kCores;
  return false;
}

Tiling roundToPowersOfTwo(Tiling t) {
  if (keepsItsCounts(t)) return t;
  for (Part& p : t) {
    p.groups = static_cast<std::int64_t>(
        std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(1, p.groups))));
    p.cores = static_cast<std::int64_t>(
        std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(1, p.cores))));
  }
  return t;
}

std::int64_t channelsOf(const Tiling& t) {
  std::int64_t n = 1;
  for (const Part& p : t) n *= p.groups;
  return n;
}

std::int64_t banksOf(const Tiling& t) {
  std::int64_t n = 1;
  for (const Part& p : t) n *= p.cores;
  return n;
}

Tiling vendorTiling(std::span<const std::int64_t> dims) {
  if (dims.size() != 2 && dims.size() != 3)
    throw InputError("DCC artifact: a vendor tiling needs 2 or 3 dimensions, got " +
                     std::to_string(dims.size()));
  const std::int64_t g0 = std::min<std::int64_t>(dims[0], kGroups), g1 = kGroups / g0;
  if (dims.size() == 2) return {{g0, 1, ceilDiv(dims[0], g0)}, {g1, kCores, ceilDiv(dims[1], kCores * g1)}};
  return {{g0, 1, ceilDiv(dims[0], g0)}, {1, 4, ceilDiv(dims[1], 4)}, {g1, 16, ceilDiv(dims[2], 16 * g1)}};
}

std::vector<Tiling> generateDrafts(std::span<const std::int64_t> dims) {
  if (dims.size() != 2 && dims.size() != 3)
    throw InputError("DCC artifact: its generator covers 2-D and 3-D kernels, not " +
                     std::to_string(dims.size()) + "-D");
  std::vector<Tiling> out = Generator(dims).run();
  if (dims[0] >= kGroups) return out;
  // The vendor variants for small batches: the first spreads the sequence over the spare channels, the
  // second (3-D only) the head dimension.
  const std::int64_t g0 = dims[0], g1 = kGroups / g0;
  if (dims.size() == 2) {
    appendAbsent(out, vendorTiling(dims));
    return out;
  }
  appendAbsent(out, vendorTiling(dims));
  appendAbsent(out, {{g0, 1, 1}, {g1, 4, ceilDiv(dims[1], 4 * g1)}, {1, 16, ceilDiv(dims[2], 16)}});
  return out;
}

Tiling checkedTiling(std::span<const std::int64_t> dims, Tiling t) {
  if (t.size() != dims.size()) {
    throw InputError("parts: DCC's drafts of this kernel have " + std::to_string(dims.size()) +
                     " parts (groups, cores, tile), got " + std::to_string(t.size()));
  }
  std::int64_t groups = 1, cores = 1;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const Part& p = t[i];
    const std::string part = "parts: part " + std::to_string(i) + " (" + std::to_string(p.groups) + ", " +
                             std::to_string(p.cores) + ", " + std::to_string(p.tile) + ")";
    if (p.groups < 1 || p.groups > kGroups)
      throw InputError(part + ": groups must be 1..16 (channels of a stack)");
    if (p.cores < 1 || p.cores > kCores)
      throw InputError(part + ": cores must be 1..64 (banks of a channel)");
    if (p.tile < 1) throw InputError(part + ": the tile must be at least 1");
    if (p.groups * p.cores * p.tile < dims[i]) {
      throw InputError(part + ": " + std::to_string(p.groups) + " x " + std::to_string(p.cores) + " x " +
                       std::to_string(p.tile) + " does not cover the dimension's " + std::to_string(dims[i]) +
                       " elements (the tile must be at least " +
                       std::to_string(ceilDiv(dims[i], p.groups * p.cores)) + ")");
    }
    groups *= p.groups;
    cores *= p.cores;
  }
  if (groups > kGroups || cores > kCores) {
    throw InputError("parts: " + tilingLabel(t) + " uses " + std::to_string(groups) + " groups x " +
                     std::to_string(cores) + " cores; one stack has 16 x 64");
  }
  return t;
}

}  // namespace pim::dcc
