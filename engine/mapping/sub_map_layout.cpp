// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/sub_map_layout.h"

#include <algorithm>
#include <optional>

#include "engine/common/error.h"

namespace pim {
namespace {

using Point = std::vector<std::int64_t>;

std::string pointText(const Point& p) {
  std::string s = "(";
  for (std::size_t j = 0; j < p.size(); ++j) s += (j ? ", " : "") + std::to_string(p[j]);
  return s + ")";
}

std::string extentText(const Point& e) {
  std::string s;
  for (std::int64_t x : e) s += (s.empty() ? "" : " x ") + std::to_string(x);
  return s;
}

// The box's extent along each dimension: the product of that entry over all tuples.
Point boxExtent(const MappingMap& map, const std::vector<std::string>& names) {
  const std::size_t n = names.size();
  Point e(n, 1);
  for (const MappingTuple& t : map.tuples) {
    if (t.entries.size() != n) {
      std::string list;
      for (const std::string& v : names) list += (list.empty() ? "" : ", ") + v;
      throw InputError(t.at.str() + ": " + map.name + "'s tuples have " + std::to_string(t.entries.size()) +
                       " entries; the iteration space has " + std::to_string(n) + " dimensions (" + list +
                       ")");
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (t.entries[j] > (std::int64_t{1} << 62) / e[j])
        throw InputError(map.at.str() + ": " + map.name + " covers over 2^62 iterations along " + names[j]);
      e[j] *= t.entries[j];
    }
  }
  return e;
}

bool inside(const Point& p, const SubMapBox& b) {
  for (std::size_t j = 0; j < p.size(); ++j)
    if (p[j] < b.lo[j] || p[j] >= b.lo[j] + b.extent[j]) return false;
  return true;
}

bool overlaps(const SubMapBox& a, const SubMapBox& b) {
  for (std::size_t j = 0; j < a.lo.size(); ++j)
    if (a.lo[j] >= b.lo[j] + b.extent[j] || b.lo[j] >= a.lo[j] + a.extent[j]) return false;
  return true;
}

// Corners tried for one placement at most: each map cuts few dimensions, so there are far fewer in practice
// (Fig. 8b: at most 3 x 3); past this the file is refused rather than searched for minutes.
constexpr std::size_t kMaxCorners = std::size_t{1} << 20;

// Per dimension, the coordinates inside the space where a box may start: 0 and every placed box's end,
// sorted. Refused (naming `map`) when their combinations exceed kMaxCorners.
std::vector<Point> cornerAxes(const std::vector<SubMapBox>& placed, const Point& extents,
                              const MappingMap& map) {
  const std::size_t n = extents.size();
  std::vector<Point> axes(n, Point{0});
  for (const SubMapBox& b : placed)
    for (std::size_t j = 0; j < n; ++j)
      if (b.lo[j] + b.extent[j] < extents[j]) axes[j].push_back(b.lo[j] + b.extent[j]);
  std::size_t corners = 1;
  for (Point& a : axes) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    corners = corners > kMaxCorners / a.size() ? kMaxCorners + 1 : corners * a.size();
  }
  if (corners > kMaxCorners)
    throw InputError(map.at.str() + ": the maps up to " + map.name +
                     " cut the space along so many dimensions " + "that over " + std::to_string(kMaxCorners) +
                     " corners would be tried to place it; cut "
                     "fewer dimensions across sub-maps");
  return axes;
}

// The first corner, dimension 1 fastest, that `accept` takes; nullopt when none does.
template <class Accept>
std::optional<Point> firstCorner(const std::vector<Point>& axes, Accept accept) {
  const std::size_t n = axes.size();
  std::vector<std::size_t> at(n, 0);
  for (;;) {
    Point p(n);
    for (std::size_t j = 0; j < n; ++j) p[j] = axes[j][at[j]];
    if (accept(p)) return p;
    std::size_t j = 0;
    while (j < n && ++at[j] == axes[j].size()) at[j++] = 0;
    if (j == n) return std::nullopt;
  }
}

}  // namespace

std::int64_t SubMapBox::volume() const {
  std::int64_t v = 1;
  for (std::int64_t e : extent) v *= e;
  return v;
}

std::string boxText(const SubMapBox& b) {
  std::string s;
  for (std::size_t j = 0; j < b.lo.size(); ++j)
    s += (j ? " x [" : "[") + std::to_string(b.lo[j]) + ", " + std::to_string(b.lo[j] + b.extent[j]) + ")";
  return s;
}

std::vector<SubMapBox> placeSubMaps(const MappingSpec& m, const std::vector<std::int64_t>& extents,
                                    const std::vector<std::string>& names) {
  if (m.maps.size() > kMaxSubMaps)
    throw InputError(m.maps[kMaxSubMaps].at.str() + ": " + m.maps[kMaxSubMaps].name + " is sub-map " +
                     std::to_string(kMaxSubMaps + 1) + "; a mapping has at most " +
                     std::to_string(kMaxSubMaps));
  const std::size_t n = extents.size();
  std::vector<SubMapBox> placed;
  for (std::size_t i = 0; i < m.maps.size(); ++i) {
    const MappingMap& map = m.maps[i];
    SubMapBox box;
    box.map = i;
    box.extent = boxExtent(map, names);
    for (std::size_t j = 0; j < n; ++j)
      if (box.extent[j] > extents[j])
        throw InputError(map.at.str() + ": " + map.name + " covers " + std::to_string(box.extent[j]) +
                         " iterations along " + names[j] + ", whose extent is " + std::to_string(extents[j]));
    const auto at = firstCorner(cornerAxes(placed, extents, map), [&](const Point& p) {
      box.lo = p;
      for (std::size_t j = 0; j < n; ++j)
        if (p[j] + box.extent[j] > extents[j]) return false;
      return std::none_of(placed.begin(), placed.end(), [&](const SubMapBox& b) { return overlaps(box, b); });
    });
    if (!at) {
      std::string before;
      for (const SubMapBox& b : placed) before += (before.empty() ? "" : ", ") + m.maps[b.map].name;
      throw InputError(map.at.str() + ": " + map.name + " (" + extentText(box.extent) + ") fits nowhere in " +
                       (before.empty() ? std::string("the space")
                                       : "what " + before + " leave" + (placed.size() == 1 ? "s" : "")) +
                       " of the " + extentText(extents) +
                       " space: sub-maps overlap (they are placed in the file's order, along the first "
                       "dimension first)");
    }
    box.lo = *at;
    placed.push_back(std::move(box));
  }
  const auto hole = firstCorner(cornerAxes(placed, extents, m.maps.back()), [&](const Point& p) {
    for (std::size_t j = 0; j < n; ++j)
      if (p[j] >= extents[j]) return false;
    return std::none_of(placed.begin(), placed.end(), [&](const SubMapBox& b) { return inside(p, b); });
  });
  if (hole)
    throw InputError((m.maps.empty() ? m.file : m.maps.back().at.str()) + ": iteration " + pointText(*hole) +
                     " of the " + extentText(extents) +
                     " space is in no sub-map; the maps must cover the whole iteration space");
  std::stable_sort(placed.begin(), placed.end(), [&](const SubMapBox& a, const SubMapBox& b) {
    return m.maps[a.map].index < m.maps[b.map].index;
  });
  return placed;
}

}  // namespace pim
