// SPDX-License-Identifier: Apache-2.0
// Kernel-level choices beside a draft (UPMEM: tasklets, caching tile, how tasklets share a reduction; IMTP's
// joint host/kernel space) and the ids of the candidates they make. A draft's parts say which unit holds
// which tile; a family with such choices also decides how each unit runs its tile. Ids extend the draft
// space's: a candidate is draft + draftCount x choice, `choice` the mixed-radix index of one value per axis
// (axis 0 fastest). Choice 0 sets every axis to its first value, the backend's own, so an id below the
// draft count is the draft exactly as the backend runs it: every stored id, schedule and session keeps
// its meaning.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pim {

struct ChoiceAxis {
  std::string key;                   // "tasklets", for JSON and the views' column
  std::string label;                 // "tasklets", the column header
  std::vector<std::int64_t> values;  // values[0] is the backend's own; no value twice
  std::vector<std::string> texts;    // per value, how a label says it: "16 tasklets", "256-B tiles"
  bool numeric = true;               // false: the values are codes, shown by their texts (a split kind)
};
using ChoiceAxes = std::vector<ChoiceAxis>;

class CandidateIds {
 public:
  /// `drafts`: the draft space's size. When drafts x the choices overflows 64 bits, no choice beyond the
  /// backend's is addressable (count() == drafts).
  CandidateIds(std::uint64_t drafts, ChoiceAxes axes);

  std::uint64_t drafts() const { return m_drafts; }
  /// Ids of every draft with every combination of choices (saturated as above).
  std::uint64_t count() const { return m_drafts * m_choices; }
  /// Combinations of choices addressable (1 without axes or on overflow).
  std::uint64_t choices() const { return m_choices; }
  const ChoiceAxes& axes() const { return m_axes; }

  /// The id of draft `draft` with value index `choice[a]` on axis a. Throws InputError out of range.
  std::uint64_t id(std::uint64_t draft, const std::vector<int>& choice) const;
  std::uint64_t draftOf(std::uint64_t id) const { return id % m_drafts; }
  /// One value index per axis.
  std::vector<int> choiceOf(std::uint64_t id) const;
  /// The chosen value on axis `key`, or `otherwise` when there is no such axis.
  std::int64_t value(std::uint64_t id, const std::string& key, std::int64_t otherwise) const;
  /// "8 tasklets, 256-B tiles, outputs per tasklet": every axis's text, or empty for choice 0.
  std::string label(std::uint64_t id) const;

 private:
  std::uint64_t m_drafts;
  ChoiceAxes m_axes;
  std::uint64_t m_choices = 1;
};

}  // namespace pim
