// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/extent_lattice.h"

#include <algorithm>
#include <limits>

#include "engine/convmap/mapspace.h"

namespace pim::convmap {

ExtentLattice::ExtentLattice(const ConvLayer& layer) {
  for (int d = 0; d < kDims; ++d) {
    m_divisors[d] = divisors(layer.bound[d]);
    m_size *= static_cast<double>(m_divisors[d].size());
  }
  std::size_t stride = 1;
  for (int d = kDims - 1; d >= 0; --d) {
    const auto& divs = m_divisors[d];
    m_stride[d] = stride;
    stride *= divs.size();
    m_covers[d].resize(divs.size());
    for (std::size_t i = 0; i < divs.size(); ++i)
      for (std::size_t j = i + 1; j < divs.size(); ++j) {
        if (divs[j] % divs[i] != 0) continue;
        const auto ratio = divs[j] / divs[i];  // a prime when only 1 and itself divide it
        bool prime = ratio > 1;
        for (std::int64_t q = 2; q * q <= ratio && prime; ++q) prime = ratio % q != 0;
        if (prime) m_covers[d][i].push_back(j);
      }
  }
}

double ExtentLattice::leastOverCovers(const std::vector<double>& values, std::size_t index) const {
  double least = std::numeric_limits<double>::infinity();
  for (int d = 0; d < kDims; ++d) {
    const auto digit = index / m_stride[d] % m_divisors[d].size();
    for (const auto j : m_covers[d][digit])
      least = std::min(least, values[index + (j - digit) * m_stride[d]]);
  }
  return least;
}

std::int64_t ExtentLattice::indexOf(const DimFactors& e) const {
  std::int64_t index = 0;
  for (int d = 0; d < kDims; ++d) {
    const auto& divs = m_divisors[d];
    const auto at = std::lower_bound(divs.begin(), divs.end(), e[d]);
    if (at == divs.end() || *at != e[d]) return -1;
    index = index * static_cast<std::int64_t>(divs.size()) + (at - divs.begin());
  }
  return index;
}

void ExtentLattice::leastOverMultiples(std::vector<double>& values, std::size_t stride) const {
  for (int d = kDims - 1; d >= 0; --d) {
    const auto& divs = m_divisors[d];
    const std::size_t n = divs.size(), block = stride * n;
    for (std::size_t base = 0; base < values.size(); base += block)
      for (std::size_t i = n; i-- > 0;)  // descending: a multiple's entry is already its own least
        for (std::size_t j = i + 1; j < n; ++j) {
          if (divs[j] % divs[i] != 0) continue;
          for (std::size_t k = 0; k < stride; ++k) {
            auto& to = values[base + i * stride + k];
            to = std::min(to, values[base + j * stride + k]);
          }
        }
    stride = block;
  }
}

double fillEnergy(const Hierarchy& h, int t, int level, double bytes, double touched) {
  double parent = std::numeric_limits<double>::infinity();
  for (int p = level + 1; p <= h.dramLevel(); ++p) {
    if (!h.levels[p].stores[t]) continue;
    const double moved = p == h.dramLevel() ? bytes - touched : bytes;
    parent = std::min(parent, h.levels[p].energyPj(moved));
  }
  return h.levels[level].energyPj(bytes) + parent;
}

ExtentFills::ExtentFills(const ConvLayer& layer, const DimFactors& e) {
  for (int d = 0; d < kDims; ++d) refills *= static_cast<double>(layer.bound[d] / e[d]);
  for (int t = 0; t < kTensors; ++t) {
    tile[t] = static_cast<double>(tileElements(layer, e, t) * layer.elementBytes[t]);
    distinct[t] = 1;
    for (int d = 0; d < kDims; ++d)
      if (relevant(d, t)) distinct[t] *= static_cast<double>(layer.bound[d] / e[d]);
  }
}

}  // namespace pim::convmap
