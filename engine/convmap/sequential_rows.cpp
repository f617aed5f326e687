// SPDX-License-Identifier: Apache-2.0
// The run starts' offsets within a row are not uniform: a 256-B aligned block of tiles always sits in one
// row. So the offsets are tracked exactly, as a distribution over the row's lattice of multiples of g: each
// loop of n steps of stride s convolves it with {0, s, ..., (n-1)s} mod row (whole periods in O(row), the
// rest step by step). A transition driven by loop j starts from the run where every loop inside j is at its
// end: its distribution is the outer loops' convolution, loop j's first n - 1 steps, and that constant shift.
#include "engine/convmap/sequential_rows.h"

#include <numeric>

namespace pim::convmap {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
std::int64_t mod(std::int64_t a, std::int64_t m) { return ((a % m) + m) % m; }

/// Offsets of run starts within a row, in units of the lattice step g (M = row / g bins).
class OffsetDistribution {
 public:
  OffsetDistribution(std::int64_t row, std::int64_t g) : m_g(g), m_bins(row / g, 0.0) { m_bins[0] = 1; }

  /// Convolves with `count` steps of `stride` bytes (a multiple of g).
  void addLoop(std::int64_t count, std::int64_t stride) {
    const auto M = static_cast<std::int64_t>(m_bins.size());
    const auto s = mod(stride / m_g, M);
    if (s == 0 || count <= 0) {
      for (auto& b : m_bins) b *= static_cast<double>(std::max<std::int64_t>(count, 0));
      return;
    }
    const auto d = std::gcd(s, M), period = M / d;
    std::vector<double> out(M, 0.0);
    if (const auto whole = count / period; whole > 0) {  // whole periods spread each coset of d evenly
      std::vector<double> coset(d, 0.0);
      for (std::int64_t r = 0; r < M; ++r) coset[r % d] += m_bins[r];
      for (std::int64_t r = 0; r < M; ++r) out[r] = static_cast<double>(whole) * coset[r % d];
    }
    // The remaining steps: along each cycle r, r + s, r + 2s, ... (d cycles of `period` bins) every bin
    // receives the sum of the `rest` bins before it, a circular sliding window: O(bins) in all.
    if (const auto rest = count % period; rest > 0)
      for (std::int64_t c = 0; c < d; ++c) {
        double window = 0;
        for (std::int64_t k = 0; k < rest; ++k) window += m_bins[mod(c - k * s, M)];
        for (std::int64_t i = 0; i < period; ++i) {
          const auto at = (c + i * s) % M;
          out[at] += window;
          window += m_bins[(at + s) % M] - m_bins[mod(at + s - rest * s, M)];
        }
      }
    m_bins.swap(out);
  }
  void shift(std::int64_t bytes) {
    const auto M = static_cast<std::int64_t>(m_bins.size());
    std::vector<double> out(M);
    for (std::int64_t r = 0; r < M; ++r) out[mod(r + bytes / m_g, M)] = m_bins[r];
    m_bins.swap(out);
  }
  /// Sum over offsets o of weight(o) * f(o in bytes).
  template <class F>
  double weighted(F f) const {
    double sum = 0;
    for (std::size_t r = 0; r < m_bins.size(); ++r)
      if (m_bins[r] != 0) sum += m_bins[r] * f(static_cast<std::int64_t>(r) * m_g);
    return sum;
  }

 private:
  std::int64_t m_g;
  std::vector<double> m_bins;
};

std::int64_t latticeStep(const std::vector<RunLoop>& loops, std::int64_t row) {
  std::int64_t g = row;
  for (const auto& l : loops)
    if (l.stride) g = std::gcd(g, l.stride);
  return g;
}

/// Transitions to another row between consecutive runs, summed over the loops (outer to inner) that drive
/// them; `scale[j]` multiplies loop j's transitions.
double rowChanges(const std::vector<RunLoop>& loops, const std::vector<double>& scale, std::int64_t runBytes,
                  std::int64_t row, std::int64_t g) {
  OffsetDistribution outer(row, g);  // the loops outside j, over their whole ranges
  double total = 0;
  for (std::size_t j = 0; j < loops.size(); ++j) {
    std::int64_t back = 0;  // loops inside j at their last index
    for (std::size_t i = j + 1; i < loops.size(); ++i) back += (loops[i].count - 1) * loops[i].stride;
    OffsetDistribution from = outer;
    from.addLoop(loops[j].count - 1, loops[j].stride);
    from.shift(back);
    const auto jump = loops[j].stride - back;  // start of the next run, from the previous run's start
    total += scale[j] * from.weighted([&](std::int64_t o) {
      return floorDiv(o + runBytes - 1, row) != floorDiv(o + jump, row) ? 1.0 : 0.0;
    });
    outer.addLoop(loops[j].count, loops[j].stride);
  }
  return total;
}

/// Row boundaries inside every run, over all runs' offsets.
double innerBoundaries(const std::vector<RunLoop>& loops, std::int64_t runBytes, std::int64_t row,
                       std::int64_t g) {
  OffsetDistribution all(row, g);
  for (const auto& l : loops) all.addLoop(l.count, l.stride);
  return all.weighted([&](std::int64_t o) { return static_cast<double>((o + runBytes - 1) / row); });
}

std::vector<RunLoop> combined(const RunNest& n) {
  auto loops = n.fillLoops;
  loops.insert(loops.end(), n.tileLoops.begin(), n.tileLoops.end());
  return loops;
}

}  // namespace

double readActivations(const RunNest& n, std::int64_t row) {
  const auto loops = combined(n);
  const auto g = latticeStep(loops, row);
  return 1.0 + innerBoundaries(loops, n.runBytes, row, g) +
         rowChanges(loops, std::vector<double>(loops.size(), 1.0), n.runBytes, row, g);
}

double readWriteActivations(const RunNest& n, std::int64_t fills, std::int64_t distinct, std::int64_t row) {
  const auto loops = combined(n);
  const auto g = latticeStep(loops, row);
  // Walks: every fill's write-back and every fill but each tile's first read; the tile's inner transitions
  // and run boundaries repeat per walk, the fills' transitions once.
  const double perFill = static_cast<double>(2 * fills - distinct) / static_cast<double>(fills);
  std::vector<double> scale(loops.size(), 1.0);
  for (std::size_t j = n.fillLoops.size(); j < loops.size(); ++j) scale[j] = perFill;
  double acts = 1.0 + perFill * innerBoundaries(loops, n.runBytes, row, g) +
                rowChanges(loops, scale, n.runBytes, row, g);
  // A write-back starts where the tile's read started: from the read's last byte back to the tile's start.
  std::int64_t lastByte = n.runBytes - 1;
  for (const auto& l : n.tileLoops) lastByte += (l.count - 1) * l.stride;
  OffsetDistribution starts(row, g);
  for (const auto& l : n.fillLoops) starts.addLoop(l.count, l.stride);
  const double share = static_cast<double>(fills - distinct) / static_cast<double>(fills);
  acts += share *
          starts.weighted([&](std::int64_t o) { return floorDiv(o + lastByte, row) != floorDiv(o, row); });
  return acts;
}

}  // namespace pim::convmap
