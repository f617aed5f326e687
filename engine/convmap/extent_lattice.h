// SPDX-License-Identifier: Apache-2.0
// The tile extents a buffer level may have (per dimension a divisor of the layer's bound), as a lattice
// ordered by "is a multiple of", and the fill terms the lower bounds read at each (fill_bound.h).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/convmap/conv_layer.h"
#include "engine/convmap/hierarchy.h"
#include "engine/convmap/mapping.h"

namespace pim::convmap {

/// Every tuple of divisors of a layer's bounds, indexed in mixed radix (dimension 0 most significant, each
/// dimension's divisors ascending).
class ExtentLattice {
 public:
  explicit ExtentLattice(const ConvLayer& layer);
  /// How many tuples (a double: it can be far too many to walk).
  double size() const { return m_size; }
  const std::vector<std::int64_t>& divisorsOf(int d) const { return m_divisors[d]; }
  /// The index of a tuple, -1 when some extent is not a divisor of its bound.
  std::int64_t indexOf(const DimFactors& e) const;
  /// Calls fn(index, e) on every tuple in index order.
  template <typename F>
  void forEach(F&& fn) const {
    DimFactors e;
    std::array<std::size_t, kDims> at{};
    for (int d = 0; d < kDims; ++d) e[d] = m_divisors[d][0];
    for (std::size_t index = 0;; ++index) {
      fn(index, e);
      int d = kDims - 1;
      for (; d >= 0 && ++at[d] == m_divisors[d].size(); --d) {
        at[d] = 0;
        e[d] = m_divisors[d][0];
      }
      if (d < 0) return;
      e[d] = m_divisors[d][at[d]];
    }
  }
  /// Calls fn(index, m) on every tuple m that is a multiple of e (e itself included) and passes `keep`,
  /// which must hold for a tuple whenever it holds for some multiple of it (a tile that fits a level at
  /// larger extents fits it at smaller ones): a tuple that fails it ends the walk of its multiples.
  template <typename Keep, typename F>
  void forEachMultiple(const DimFactors& e, Keep&& keep, F&& fn) const {
    std::array<std::size_t, kDims> digit{};  // e's position among each dimension's divisors
    for (int d = 0; d < kDims; ++d)
      digit[d] = static_cast<std::size_t>(std::lower_bound(m_divisors[d].begin(), m_divisors[d].end(), e[d]) -
                                          m_divisors[d].begin());
    DimFactors m = e;
    walkMultiples(0, e, m, digit, keep, fn);
  }
  /// values[index * stride + k] for every tuple and k < stride: each entry becomes the least over the entries
  /// of the tuples that are multiples of its own (one pass per dimension: the order is the product of the
  /// dimensions' orders).
  void leastOverMultiples(std::vector<double>& values, std::size_t stride) const;
  /// The least of values[j] (one entry per tuple) over the tuples j that are e's multiples by one prime in
  /// one dimension, e the tuple at `index` (+inf when there are none): when each of those entries is already
  /// the least over its own multiples, the least over e's strict multiples.
  double leastOverCovers(const std::vector<double>& values, std::size_t index) const;

 private:
  std::size_t indexOfDigits(const std::array<std::size_t, kDims>& digit) const {
    std::size_t index = 0;
    for (int d = 0; d < kDims; ++d) index = index * m_divisors[d].size() + digit[d];
    return index;
  }
  // Dimension d onwards: each multiple of e_d in ascending order, the later dimensions at e's values while
  // `keep` is asked, so that a failing tuple stops the ascent in d.
  template <typename Keep, typename F>
  void walkMultiples(int d, const DimFactors& e, DimFactors& m, std::array<std::size_t, kDims>& digit,
                     Keep& keep, F& fn) const {
    if (d == kDims) {
      fn(indexOfDigits(digit), static_cast<const DimFactors&>(m));
      return;
    }
    const std::size_t first = digit[d];
    for (std::size_t j = first; j < m_divisors[d].size(); ++j) {
      if (m_divisors[d][j] % e[d] != 0) continue;
      digit[d] = j;
      m[d] = m_divisors[d][j];
      if (!keep(indexOfDigits(digit))) break;  // the later dimensions still at e's: nothing larger passes
      walkMultiples(d + 1, e, m, digit, keep, fn);
    }
    digit[d] = first;
    m[d] = e[d];
  }

  std::array<std::vector<std::int64_t>, kDims> m_divisors;
  // Per dimension and divisor position, the positions of that divisor times a prime (its covers), and the
  // index distance between consecutive positions of the dimension.
  std::array<std::vector<std::vector<std::size_t>>, kDims> m_covers;
  std::array<std::size_t, kDims> m_stride{};
  double m_size = 1;
};

/// Energy of moving `bytes` of t between `level` and the cheapest level above it that may keep t (the
/// evaluator charges the same per block for a read and a write). From DRAM, the `touched` bytes of one pass
/// are left out: the bounds count that pass on their own.
double fillEnergy(const Hierarchy& h, int t, int level, double bytes, double touched);

/// What a level with tile extents e moves per tensor (docs/convmap.md "Lower bound"): L, the product of the
/// loop bounds above it, and per tensor its tile's bytes and its distinct tiles (the product of D_d / e_d
/// over its own dimensions).
struct ExtentFills {
  double refills = 1;  // L
  std::array<double, kTensors> tile{}, distinct{};
  ExtentFills(const ConvLayer& layer, const DimFactors& e);
  /// Bytes of t that cross the level (and its parent) when it is filled `fills` times: fills x tile, and for
  /// an output, whose partial sums go both ways (every fill written back, every fill but each tile's first
  /// read back, as the evaluator counts), (2 fills - distinct) x tile.
  double moved(int t, double fills) const {
    return t == Output ? (2 * fills - distinct[t]) * tile[t] : fills * tile[t];
  }
};

}  // namespace pim::convmap
