// SPDX-License-Identifier: Apache-2.0
#include "engine/core/kernel_choices.h"

#include <limits>
#include <utility>

#include "engine/common/error.h"

namespace pim {

CandidateIds::CandidateIds(std::uint64_t drafts, ChoiceAxes axes)
    : m_drafts(drafts ? drafts : 1), m_axes(std::move(axes)) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t n = 1;
  for (const ChoiceAxis& a : m_axes) {
    const std::uint64_t v = a.values.empty() ? 1 : a.values.size();
    if (n > kMax / v) {
      m_axes.clear();
      return;
    }
    n *= v;
  }
  if (n > kMax / m_drafts) {  // ids would overflow: the backend's choices only
    m_axes.clear();
    return;
  }
  m_choices = n;
}

std::uint64_t CandidateIds::id(std::uint64_t draft, const std::vector<int>& choice) const {
  if (draft >= m_drafts)
    throw InputError("draft " + std::to_string(draft) + " is outside 0.." + std::to_string(m_drafts - 1));
  std::uint64_t index = 0, radix = 1;
  for (std::size_t a = 0; a < m_axes.size(); ++a) {
    const int c = a < choice.size() ? choice[a] : 0;
    if (c < 0 || static_cast<std::size_t>(c) >= m_axes[a].values.size())
      throw InputError(m_axes[a].key + ": choice " + std::to_string(c) + " is outside 0.." +
                       std::to_string(m_axes[a].values.size() - 1));
    index += radix * static_cast<std::uint64_t>(c);
    radix *= m_axes[a].values.size();
  }
  return index * m_drafts + draft;
}

std::vector<int> CandidateIds::choiceOf(std::uint64_t id) const {
  std::uint64_t index = id / m_drafts;
  std::vector<int> out;
  out.reserve(m_axes.size());
  for (const ChoiceAxis& a : m_axes) {
    out.push_back(static_cast<int>(index % a.values.size()));
    index /= a.values.size();
  }
  return out;
}

std::int64_t CandidateIds::value(std::uint64_t id, const std::string& key, std::int64_t otherwise) const {
  const std::vector<int> c = choiceOf(id);
  for (std::size_t a = 0; a < m_axes.size(); ++a)
    if (m_axes[a].key == key) return m_axes[a].values[static_cast<std::size_t>(c[a])];
  return otherwise;
}

std::string CandidateIds::label(std::uint64_t id) const {
  if (id < m_drafts) return {};
  const std::vector<int> c = choiceOf(id);
  std::string s;
  for (std::size_t a = 0; a < m_axes.size(); ++a)
    s += (s.empty() ? "" : ", ") + m_axes[a].texts[static_cast<std::size_t>(c[a])];
  return s;
}

}  // namespace pim
