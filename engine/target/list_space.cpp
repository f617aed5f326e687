// SPDX-License-Identifier: Apache-2.0
#include "engine/target/list_space.h"

#include <utility>
#include <vector>

namespace pim {
namespace {

class ListSpace final : public ICandidateSpace {
 public:
  ListSpace(CandidateList list, const PruneRuleRegistry& rules) : m_list(std::move(list)) {
    for (std::size_t i = 0; i < rules.size(); ++i)
      m_rules.push_back({rules.at(i).number(), std::string(rules.at(i).name()), false, 0});
  }
  std::uint64_t size() const override { return m_list.size(); }
  Draft candidate(std::uint64_t id) const override {
    m_list.label(id);  // the range check
    return Draft{id, {}};
  }
  std::string label(const Draft& d) const override { return m_list.label(d.id); }
  std::string labelTitle() const override { return m_list.labelTitle; }
  PruneCounts counts() const override { return {size(), m_rules, size()}; }
  void forEachKept(const std::function<bool(const Draft&)>& fn) const override {
    for (std::uint64_t id = 0; id < size(); ++id)
      if (!fn(Draft{id, {}})) return;
  }
  Verdict why(std::uint64_t id) const override {
    m_list.label(id);
    Verdict v;
    v.draft = id;
    v.reason = m_list.reason;
    return v;
  }

 private:
  CandidateList m_list;
  std::vector<RuleCount> m_rules;
};

}  // namespace

std::unique_ptr<ICandidateSpace> makeListSpace(CandidateList list, const PruneRuleRegistry& rules) {
  return std::make_unique<ListSpace>(std::move(list), rules);
}

}  // namespace pim
