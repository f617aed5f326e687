// SPDX-License-Identifier: Apache-2.0
// The readable form of an UPMEM program (upmemListing): the host plan's notes, then the busiest DPU's
// tasklet 0, step by step.
#include "engine/codegen/upmem_codegen.h"

#include <ostream>
#include <sstream>

namespace pim {

using sim::dpu::HostStep;
using sim::dpu::Step;

namespace {

void listSteps(std::ostream& os, const std::vector<Step>& steps, int depth, std::size_t& lines,
               std::size_t max) {
  for (const Step& s : steps) {
    if (lines >= max) return;
    os << std::string(static_cast<std::size_t>(2 * depth), ' ');
    switch (s.kind) {
      case Step::Kind::Issue:
        os << "issue " << s.count << " instruction" << (s.count == 1 ? "" : "s") << '\n';
        break;
      case Step::Kind::Dma:
        os << (s.toMram ? "mram_write " : "mram_read ") << s.bytes << " B\n";
        break;
      case Step::Kind::Barrier:
        os << "barrier_wait\n";
        break;
      case Step::Kind::Handshake:
        os << "handshake_wait_for(tasklet - 1); handshake_notify()\n";
        break;
      case Step::Kind::Lock:
        os << "mutex_lock(" << s.mutex << ")\n";
        break;
      case Step::Kind::Unlock:
        os << "mutex_unlock(" << s.mutex << ")\n";
        break;
      case Step::Kind::Loop:
        os << "loop " << s.count << " times:\n";
        ++lines;
        listSteps(os, s.body, depth + 1, lines, max);
        continue;
    }
    ++lines;
  }
}

}  // namespace

std::string upmemListing(const UpmemProgram& prog, std::size_t maxLines) {
  std::ostringstream os;
  std::size_t lines = 0;
  for (const auto& n : prog.notes) {
    if (lines++ >= maxLines) return os.str();
    os << n << '\n';
  }
  for (const HostStep& s : prog.plan.steps) {
    if (s.kind != HostStep::Kind::Launch) continue;
    std::size_t busiest = 0, most = 0;
    for (std::size_t i = 0; i < s.kernelOf.size(); ++i) {
      if (s.kernelOf[i] < 0) continue;
      std::size_t size = 0;
      for (const auto& tp : s.kernels[static_cast<std::size_t>(s.kernelOf[i])].tasklets) size += tp.size();
      if (size > most) most = size, busiest = i;
    }
    if (most == 0 || lines >= maxLines) continue;
    os << "DPU " << busiest % static_cast<std::size_t>(prog.plan.dpusPerRank) << " of rank "
       << busiest / static_cast<std::size_t>(prog.plan.dpusPerRank) << ", tasklet 0:\n";
    ++lines;
    listSteps(os, s.kernels[static_cast<std::size_t>(s.kernelOf[busiest])].tasklets.front(), 1, lines,
              maxLines);
  }
  return os.str();
}

}  // namespace pim
