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

/// Offsets of run starts within a row, in units of the lattice step g (M = row / g bins). The inner loops
/// step their indices by s and wrap instead of taking a remainder per bin: this class is most of the
/// heuristic's time (a row of 1,024 one-byte elements is 1,024 bins), and the sums keep their order, so
/// every count stays what it was to the last bit.
class OffsetDistribution {
 public:
  OffsetDistribution(std::int64_t row, std::int64_t g) : m_g(g), m_bins(row / g, 0.0) { m_bins[0] = 1; }

  /// Convolves with `count` steps of `stride` bytes (a multiple of g).
  void addLoop(std::int64_t count, std::int64_t stride) {
    convolve(m_bins, count, stride, m_scratch);
    m_bins.swap(m_scratch);
  }
  /// This distribution becomes `from`'s convolved with `count` steps of `stride` bytes.
  void assignConvolved(const OffsetDistribution& from, std::int64_t count, std::int64_t stride) {
    m_g = from.m_g;
    convolve(from.m_bins, count, stride, m_bins);
  }
  /// Sum over offsets o, in ascending order, of weight(o) * f(o in bytes), with every offset first moved by
  /// `shiftBytes` (a multiple of g) around the row.
  template <class F>
  double weighted(F f, std::int64_t shiftBytes = 0) const {
    const auto M = static_cast<std::int64_t>(m_bins.size());
    auto from = mod(-shiftBytes / m_g, M);  // the bin that lands on offset 0
    double sum = 0;
    for (std::int64_t r = 0; r < M; ++r) {
      if (const double w = m_bins[static_cast<std::size_t>(from)]; w != 0) sum += w * f(r * m_g);
      if (++from == M) from = 0;
    }
    return sum;
  }

 private:
  void convolve(const std::vector<double>& in, std::int64_t count, std::int64_t stride,
                std::vector<double>& out) const {
    const auto M = static_cast<std::int64_t>(in.size());
    const auto s = mod(stride / m_g, M);
    out.assign(in.size(), 0.0);
    if (s == 0 || count <= 0) {
      const auto times = static_cast<double>(std::max<std::int64_t>(count, 0));
      for (std::int64_t r = 0; r < M; ++r) out[r] = in[r] * times;
      return;
    }
    const auto d = std::gcd(s, M), period = M / d;
    if (const auto whole = count / period; whole > 0) {  // whole periods spread each coset of d evenly
      std::vector<double> coset(d, 0.0);
      for (std::int64_t r = 0, c = 0; r < M; ++r, c = c + 1 == d ? 0 : c + 1) coset[c] += in[r];
      for (std::int64_t r = 0, c = 0; r < M; ++r, c = c + 1 == d ? 0 : c + 1)
        out[r] = static_cast<double>(whole) * coset[c];
    }
    // The remaining steps: along each cycle r, r + s, r + 2s, ... (d cycles of `period` bins) every bin
    // receives the sum of the `rest` bins before it, a circular sliding window: O(bins) in all.
    const auto rest = count % period;
    if (rest == 0) return;
    auto up = [&](std::int64_t i) { return i + s >= M ? i + s - M : i + s; };
    for (std::int64_t c = 0; c < d; ++c) {
      double window = 0;
      for (std::int64_t k = 0, i = c; k < rest; ++k, i = i >= s ? i - s : i - s + M) window += in[i];
      std::int64_t at = c, tail = mod(c + s - rest * s, M);
      for (std::int64_t i = 0; i < period; ++i) {
        out[at] += window;
        at = up(at);
        window += in[at] - in[tail];
        tail = up(tail);
      }
    }
  }

  std::int64_t m_g;
  std::vector<double> m_bins;
  std::vector<double> m_scratch;  // addLoop's result before the swap, kept for its capacity
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
  OffsetDistribution outer(row, g), from(row, g);  // the loops outside j, over their whole ranges
  double total = 0;
  for (std::size_t j = 0; j < loops.size(); ++j) {
    std::int64_t back = 0;  // loops inside j at their last index
    for (std::size_t i = j + 1; i < loops.size(); ++i) back += (loops[i].count - 1) * loops[i].stride;
    from.assignConvolved(outer, loops[j].count - 1, loops[j].stride);
    const auto jump = loops[j].stride - back;  // start of the next run, from the previous run's start
    // For o in [0, row), floor((o + x) / row) is floor(x / row), plus one from o = row - (x mod row) on.
    const auto lastRow = floorDiv(runBytes - 1, row), lastTurn = row - (runBytes - 1 - lastRow * row);
    const auto jumpRow = floorDiv(jump, row), jumpTurn = row - (jump - jumpRow * row);
    total += scale[j] * from.weighted(
                            [&](std::int64_t o) {
                              return lastRow + (o >= lastTurn) != jumpRow + (o >= jumpTurn) ? 1.0 : 0.0;
                            },
                            back);
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
