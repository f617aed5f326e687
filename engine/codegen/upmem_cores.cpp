// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/upmem_cores.h"

namespace pim {

UpmemCores::UpmemCores(const DraftSpace& space, const Draft& d) {
  const Kernel& k = space.kernel();
  for (const PartChoice& p : d.parts) m_groupsUsed *= p.groups;
  m_tensors = k.tensors.size();
  m_loops = k.loops.size();
  m_refBase.push_back(0);
  for (const auto& [stmt, ref] : k.references()) m_refBase.push_back(m_refBase.back() + ref.index.size());
  // References place statements in launches and size the exchanges between them: one statement needs none.
  const bool keepReferences = k.statements.size() > 1;
  m_refAxesPerCore = keepReferences ? m_refBase.back() : 0;
  std::size_t cores = 1;
  for (const PartChoice& p : d.parts)
    cores *= static_cast<std::size_t>(p.groups) * static_cast<std::size_t>(p.cores);
  m_idle.reserve(cores);
  m_group.reserve(cores);
  m_core.reserve(cores);
  m_elements.reserve(cores * m_tensors);
  m_loopCounts.reserve(cores * m_loops);
  m_refAxes.reserve(cores * m_refAxesPerCore);
  auto add = [this](const CoreSizes& s) {
    m_idle.push_back(s.idle ? 1 : 0);
    m_group.push_back(s.group);
    m_core.push_back(s.core);
    m_elements.insert(m_elements.end(), s.elements.begin(), s.elements.end());
    m_loopCounts.insert(m_loopCounts.end(), s.loopCounts.begin(), s.loopCounts.end());
  };
  if (!keepReferences) {
    forEachCoreSizes(space, d, IndexingStrategy::Exact, add);
    return;
  }
  forEachCoreTile(space, d, IndexingStrategy::Exact, [this, &add](const CoreTile& t) {
    add(sizesOf(t));
    for (const auto& axes : t.references) m_refAxes.insert(m_refAxes.end(), axes.begin(), axes.end());
  });
}

std::int64_t UpmemCores::loopProduct(std::size_t c, const std::vector<int>& loops) const {
  std::int64_t n = 1;
  for (int l : loops) n *= loopCount(c, l);
  return n;
}

std::int64_t UpmemCores::referenceElements(std::size_t c, std::size_t ref) const {
  if (idle(c)) return 0;
  std::int64_t n = 1;
  for (const IndexSet& s : reference(c, ref)) n *= s.count;
  return n;
}

}  // namespace pim
