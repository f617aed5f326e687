// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/upmem_launches.h"

#include <algorithm>
#include <map>
#include <span>

namespace pim {
namespace {

// Whether every index `read` takes lies in what `written` covers, axis by axis (a strided write covers only
// a read of the same indices).
bool covered(std::span<const IndexSet> read, std::span<const IndexSet> written) {
  if (read.size() != written.size()) return false;
  for (std::size_t a = 0; a < read.size(); ++a) {
    const IndexSet& r = read[a];
    const IndexSet& w = written[a];
    if (r.empty()) continue;
    if (w.contiguous() ? r.lo() < w.lo() || r.hi() > w.hi() : !(r == w)) return false;
  }
  return true;
}

// Whether reference `read` of every busy DPU stays within what reference `written` wrote on that DPU.
bool local(const UpmemCores& cores, std::size_t read, std::size_t written) {
  for (std::size_t c = 0; c < cores.size(); ++c)
    if (!cores.idle(c) && !covered(cores.reference(c, read), cores.reference(c, written))) return false;
  return true;
}

}  // namespace

std::size_t targetReference(const Kernel& k, std::size_t s) {
  const auto refs = k.references();
  for (std::size_t r = 0; r < refs.size(); ++r)
    if (refs[r].first == static_cast<int>(s)) return r;  // a statement's target comes first
  return refs.size();
}

std::vector<std::size_t> readsOf(const Kernel& k, std::size_t s, int t) {
  const auto refs = k.references();
  std::vector<std::size_t> out;
  const std::size_t target = targetReference(k, s);
  for (std::size_t r = target + 1; r < refs.size() && refs[r].first == static_cast<int>(s); ++r)
    if (refs[r].second.tensor == t) out.push_back(r);
  return out;
}

std::vector<LaunchGroup> launchGroups(const Kernel& k, const UpmemCores& cores) {
  std::vector<LaunchGroup> groups(1);
  struct Writer {
    std::size_t statement, group;
  };
  std::map<int, Writer> writerOf;  // tensor -> the last statement writing it so far, and its launch
  auto add = [](std::vector<int>& v, int t) {
    if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
  };
  for (std::size_t s = 0; s < k.statements.size(); ++s) {
    std::vector<int> sameLaunch, earlierLaunch;  // tensors statement s reads from another DPU, by writer
    for (const auto& [t, w] : writerOf)
      for (std::size_t r : readsOf(k, s, t))
        if (!local(cores, r, targetReference(k, w.statement)))
          add(w.group + 1 == groups.size() ? sameLaunch : earlierLaunch, t);
    if (!sameLaunch.empty()) {  // the writer runs in this launch: the read waits for the next one
      groups.back().last = s;
      groups.push_back({s, s, {}});
      for (int t : sameLaunch) add(groups.back().exchanged, t);
    }
    // Written by an earlier launch: the host moves it before this launch starts.
    for (int t : earlierLaunch) add(groups.back().exchanged, t);
    writerOf[k.statements[s].target.tensor] = {s, groups.size() - 1};
  }
  groups.back().last = k.statements.size();
  return groups;
}

}  // namespace pim
