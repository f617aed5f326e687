// SPDX-License-Identifier: Apache-2.0
#include "sim/dpu/dpu_slice.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace pim::sim::dpu {
namespace {

constexpr std::int64_t kMinSlicedTrips = 64;

bool hasBarrier(const std::vector<Step>& seq) {
  return std::any_of(seq.begin(), seq.end(), [](const Step& s) {
    return s.kind == Step::Kind::Barrier || s.kind == Step::Kind::Handshake || s.kind == Step::Kind::Lock ||
           (s.kind == Step::Kind::Loop && hasBarrier(s.body));
  });
}

// The position of a program's one top-level loop, or nullopt when it has none or several.
std::optional<std::size_t> mainLoop(const TaskletProgram& p) {
  std::optional<std::size_t> at;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i].kind != Step::Kind::Loop) continue;
    if (at) return std::nullopt;
    at = i;
  }
  return at;
}

// The kernel with each tasklet's main loop cut to its share of `trips` iterations of the longest one.
DpuKernel slice(const DpuKernel& k, std::int64_t trips, std::int64_t longest) {
  DpuKernel out = k;
  for (TaskletProgram& p : out.tasklets) {
    Step& loop = p[*mainLoop(p)];
    loop.count = (loop.count * trips + longest - 1) / longest;
  }
  return out;
}

}  // namespace

void countSteps(const std::vector<Step>& seq, std::int64_t times, DpuRun& r) {
  for (const Step& s : seq) {
    switch (s.kind) {
      case Step::Kind::Issue:
        r.instructions += times * std::max<std::int64_t>(0, s.count);
        break;
      case Step::Kind::Dma:
        r.instructions += times;
        r.dmaRequests += times;
        r.dmaBytes += times * s.bytes;
        break;
      case Step::Kind::Barrier:
      case Step::Kind::Handshake:
      case Step::Kind::Lock:
      case Step::Kind::Unlock:
        r.instructions += times;
        break;
      case Step::Kind::Loop:
        countSteps(s.body, times * std::max<std::int64_t>(0, s.count), r);
        break;
    }
  }
}

std::string sliceRefusal(const DpuKernel& kernel) {
  for (std::size_t t = 0; t < kernel.tasklets.size(); ++t) {
    const TaskletProgram& p = kernel.tasklets[t];
    const auto at = mainLoop(p);
    if (!at) return "tasklet " + std::to_string(t) + " has no single main loop";
    if (hasBarrier(p[*at].body))
      return "tasklet " + std::to_string(t) + "'s main loop contains a barrier, a handshake or a mutex";
  }
  return {};
}

SlicedRun simulateDpuSliced(const DpuConfig& cfg, const DpuKernel& kernel, double alpha) {
  SlicedRun out;
  std::int64_t longest = 0;
  if (sliceRefusal(kernel).empty()) {
    for (const TaskletProgram& p : kernel.tasklets) longest = std::max(longest, p[*mainLoop(p)].count);
  }
  out.fullTrips = longest;
  // Slices of 1, 2, 4, ... iterations until the cost per iteration of the last doubling is within alpha of
  // the one before. CoMoNM asks that doubling the slice double the cycles; on PrIM-like loops the tasklets'
  // DMAs start in step and take many iterations to spread out, a transient that ratio keeps counting, so the
  // test here is on the added cycles per added iteration. The growth is geometric: log(n) simulations.
  // Slices pay only when they converge well before the loop ends: they take at least 1 + 2 + 4 + 8 trips
  // before extrapolating, so a shorter loop is simulated whole (faster, and exact).
  if (longest >= kMinSlicedTrips) {
    DpuRun prev = simulateDpu(cfg, slice(kernel, 1, longest));
    DpuRun cur = simulateDpu(cfg, slice(kernel, 2, longest));
    double prevPerTrip = cur.cycles - prev.cycles;
    int steady =
        0;  // consecutive doublings whose cost per iteration agreed: two, so one chance match does not
    for (std::int64_t c = 2; 4 * c <= longest; c *= 2) {
      prev = std::move(cur);
      cur = simulateDpu(cfg, slice(kernel, 2 * c, longest));
      const double perTrip = (cur.cycles - prev.cycles) / static_cast<double>(c);
      steady = std::abs(perTrip / prevPerTrip - 1) <= alpha ? steady + 1 : 0;
      prevPerTrip = perTrip;
      if (steady < 2) continue;
      // Extrapolated along the steady cost per iteration (scaling the slice alone would also scale its
      // transient); the counts need no extrapolation, the program says them.
      const double rest = static_cast<double>(longest - 2 * c);
      out.run = cur;
      out.run.cycles = cur.cycles + perTrip * rest;
      for (std::size_t t = 0; t < out.run.taskletEnd.size(); ++t)
        out.run.taskletEnd[t] += (cur.taskletEnd[t] - prev.taskletEnd[t]) / static_cast<double>(c) * rest;
      out.run.instructions = out.run.dmaRequests = out.run.dmaBytes = 0;
      for (const TaskletProgram& p : kernel.tasklets) countSteps(p, 1, out.run);
      out.sliced = true;
      out.sliceTrips = 2 * c;
      return out;
    }
  }
  out.run = simulateDpu(cfg, kernel);
  return out;
}

}  // namespace pim::sim::dpu
