// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/mapping_schedule.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "engine/common/error.h"
#include "engine/core/kernel_choices.h"
#include "engine/target/registry.h"
#include "engine/target/upmem/upmem_choices.h"

namespace pim {
namespace {

// The backend parameter that carries level 3 when the family has one (UPMEM's tasklets).
constexpr const char* kTaskletParam = "pim.tasklets";
constexpr const char* kBlockParam = "pim.blockBytes";
// Choice axes the map states elsewhere, and where: a "choices" entry for them would say it twice.
constexpr const char* kTaskletsAxis = "tasklets";
constexpr const char* kTileAxis = "tile_bytes";
constexpr std::pair<const char*, const char*> kStatedElsewhere[] = {
    {kTaskletsAxis, "the tasklets are the map's level 3"},
    {kTileAxis, "the tile is the file's \"block_bytes\""}};

struct Levels {
  std::string names[3];
  bool threads = false;  // level 3 is a kernel-level choice (tasklets), not lanes
  std::string list() const { return names[0] + ", " + names[1] + ", " + names[2]; }
};

Levels levelsOf(const Backend& b) {
  Levels l;
  l.threads = b.param(kTaskletParam) != nullptr;
  if (l.threads) {
    const UnitGeometry g = targetOf(b).geometry(b);
    l.names[0] = g.outerName + "s";
    l.names[1] = g.innerName + "s per " + g.outerName;
    l.names[2] = "tasklets per " + g.innerName;
  } else {
    l.names[0] = "PIM groups";
    l.names[1] = "PIM cores per group";
    l.names[2] = "lanes";
  }
  return l;
}

std::string lettersOf(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(c));
  return out;
}

// One map of K+1 = 4 tuples, written for this backend.
const MappingMap& checkedMap(const MappingSpec& m, const Backend& b, const Levels& levels) {
  if (!m.target.empty() && lettersOf(m.target) != lettersOf(b.name) &&
      lettersOf(m.target) != lettersOf(targetOf(b).family()))
    throw InputError((m.maps.empty() ? m.file : m.maps.front().at.str()) + ": a mapping for '" + m.target +
                     "', not for backend " + b.name);
  if (m.maps.size() > 1)
    throw InputError(m.maps[1].at.str() + ": a second map (" + m.maps[1].name +
                     "): sub-maps run one after another over parts of the space, which one PIMScope draft "
                     "cannot say; `pimscope-cli simulate --schedule mapping:FILE` runs them in turn");
  const MappingMap& map = m.maps.front();
  if (map.tuples.size() != 4)
    throw InputError(map.at.str() + ": " + map.name + " has " + std::to_string(map.tuples.size()) +
                     " tuples; a map on " + b.name + "'s 3 levels (" + levels.list() +
                     ") has 4: one per level, then each leaf's share");
  return map;
}

// The product of a tuple's entries, or of one entry over several tuples; nullopt past 2^62.
std::optional<std::int64_t> product(const std::vector<std::int64_t>& xs) {
  std::int64_t p = 1;
  for (std::int64_t x : xs) {
    if (x > (std::int64_t{1} << 62) / p) return std::nullopt;
    p *= x;
  }
  return p;
}

std::string timesText(const std::vector<std::int64_t>& xs) {
  std::string s;
  for (std::int64_t x : xs) s += (s.empty() ? "" : " x ") + std::to_string(x);
  return s;
}

std::string tupleText(const MappingTuple& t) {
  std::string s;
  for (std::int64_t x : t.entries) s += (s.empty() ? "(" : ", ") + std::to_string(x);
  return s + ")";
}

// Units one level uses, refused above `limit` (a level of the machine or a parameter's range).
std::int64_t levelUnits(const MappingTuple& t, const std::string& level, std::int64_t limit,
                        const std::string& limitText) {
  const auto n = product(t.entries);
  if (!n || *n > limit)
    throw InputError(t.at.str() + ": level " + level + " " + tupleText(t) + " uses " +
                     (n ? std::to_string(*n) : "over 2^62") + " units, above " + limitText);
  return *n;
}

// Every dimension's entries multiply to its extent (CoMoNM's invariant).
void checkProducts(const MappingMap& map, const Kernel& k, const DimensionSets& sets) {
  const std::size_t n = k.loops.size();
  if (map.tuples.front().entries.size() != n) {
    std::string vars;
    for (const Loop& l : k.loops) vars += (vars.empty() ? "" : ", ") + l.var;
    throw InputError(map.tuples.front().at.str() + ": the tuples have " +
                     std::to_string(map.tuples.front().entries.size()) + " entries; " + k.name +
                     "'s iteration space has " + std::to_string(n) + " dimensions (" + vars + ")");
  }
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<std::int64_t> column;
    for (const MappingTuple& t : map.tuples) column.push_back(t.entries[j]);
    const std::int64_t extent = sets.loopHi[j] - sets.loopLo[j];
    const auto p = product(column);
    if (!p || *p != extent)
      throw InputError(map.at.str() + ": dimension " + std::to_string(j + 1) + " (" + k.loops[j].var +
                       "): " + timesText(column) + " = " + (p ? std::to_string(*p) : "over 2^62") +
                       ", but its extent is " + std::to_string(extent) +
                       " (the entries of a dimension multiply to its extent)");
  }
}

// "0 (streamed per output), 1 (kept in WRAM)" or "8 tasklets, 16 tasklets".
std::string valuesText(const ChoiceAxis& a) {
  std::string out;
  for (std::size_t i = 0; i < a.values.size(); ++i)
    out += (i ? ", " : "") + (a.numeric ? std::to_string(a.values[i]) : "\"" + a.texts[i] + "\"");
  return out;
}

// The index on axis `a` of the value choice `c` names: one of its texts, or a numeric axis's number.
int choiceIndex(const ChoiceAxis& a, const MappingChoice& c) {
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (c.value ? a.numeric && a.values[i] == *c.value : a.texts[i] == c.text) return static_cast<int>(i);
  throw InputError(c.at.str() + ": " + c.valueText() + " is not a value of " + a.key + " (" + a.label +
                   "); it takes " + valuesText(a));
}

// The candidate of `draft` with the file's kernel-level choices, every axis it does not name at the
// backend's own value (choice 0), with a note per choice.
Draft withChoices(const MappingSpec& m, const Problem& p, const Draft& draft,
                  std::vector<std::string>& notes) {
  const CandidateIds ids = targetOf(p.backend()).candidateIds(p);
  std::vector<int> choice(ids.axes().size(), 0);
  for (const MappingChoice& c : m.choices) {
    for (const auto& [key, where] : kStatedElsewhere)
      if (c.key == key) throw InputError(c.at.str() + ": " + where + ", not a choice");
    const auto& axes = ids.axes();
    const auto it =
        std::find_if(axes.begin(), axes.end(), [&](const ChoiceAxis& a) { return a.key == c.key; });
    if (it == axes.end()) {
      std::string keys;
      for (const ChoiceAxis& a : axes) keys += (keys.empty() ? "" : ", ") + a.key;
      throw InputError(c.at.str() + ": " + p.kernel().name + " on " + p.backend().name + " has no choice " +
                       c.key +
                       (keys.empty() ? " (it has no kernel-level choices)" : " (its choices: " + keys + ")"));
    }
    const int index = choiceIndex(*it, c);
    choice[static_cast<std::size_t>(it - axes.begin())] = index;
    notes.push_back(c.key + ": " + it->texts[static_cast<std::size_t>(index)]);
  }
  return candidateOf(p, ids.id(draft.id, choice));
}

// Loops some statement of `k` reduces over.
std::vector<bool> reducedLoops(const Kernel& k) {
  std::vector<bool> reduced(k.loops.size(), false);
  for (const Statement& st : k.statements)
    for (int v : st.reducedLoops()) reduced[static_cast<std::size_t>(v)] = true;
  return reduced;
}

// Outputs one DPU holds: the product of its shares (level 3 times the leaf) along the loops not reduced.
std::int64_t outputsPerUnit(const std::vector<std::int64_t>& share, const std::vector<bool>& reduced) {
  std::int64_t outs = 1;
  for (std::size_t j = 0; j < share.size(); ++j)
    if (!reduced[j]) outs *= share[j];
  return outs;
}

// Level 3's tasklets as the code generator lays them (taskletsTakeOutputs): a tuple over loops not reduced
// says they take outputs, one over reduced loops that they split the reduction; over both, nothing the
// generator can do (it has no two-dimensional tasklet grid). The file's tasklet split (the backend's own when
// it names none) must give that layout; where the backend's own does not, the split that does is added to
// the choices. A named split that does not is refused with both places. `layout` says which it is, for the
// level-3 note.
std::vector<MappingChoice> choicesWithLevelThree(const MappingSpec& m, const MappingMap& map,
                                                 const Problem& p, std::string& layout) {
  std::vector<MappingChoice> out = m.choices;
  const CandidateIds ids = targetOf(p.backend()).candidateIds(p);
  const auto& axes = ids.axes();
  const auto axis =
      std::find_if(axes.begin(), axes.end(), [](const ChoiceAxis& a) { return a.key == kTaskletSplitKey; });
  if (axis == axes.end()) return out;  // nothing reduces
  const Kernel& k = p.kernel();
  const std::vector<bool> reduced = reducedLoops(k);
  const MappingTuple& third = map.tuples[2];
  bool onOutputs = false, onReduced = false;
  std::vector<std::int64_t> share(k.loops.size());
  for (std::size_t j = 0; j < k.loops.size(); ++j) {
    share[j] = third.entries[j] * map.tuples[3].entries[j];
    (reduced[j] ? onReduced : onOutputs) |= third.entries[j] > 1;
  }
  if (onOutputs && onReduced) {
    layout =
        "over output and reduced loops at once, which the code generator cannot lay (it has no "
        "two-dimensional tasklet grid): it gives them outputs when a DPU holds at least as many, else splits "
        "the reduction (docs/simulator.md)";
    return out;
  }
  if (!onOutputs && !onReduced) return out;
  const std::int64_t outputs = outputsPerUnit(share, reduced), tasklets = product(third.entries).value_or(0);
  const auto named = std::find_if(m.choices.begin(), m.choices.end(),
                                  [](const MappingChoice& c) { return c.key == kTaskletSplitKey; });
  auto splitOf = [&](int index) {
    return static_cast<TaskletSplit>(axis->values[static_cast<std::size_t>(index)]);
  };
  const TaskletSplit given = named == m.choices.end() ? splitOf(0) : splitOf(choiceIndex(*axis, *named));
  const char* kind = onOutputs ? "take outputs" : "split the reduction";
  layout = std::string("they ") + kind;
  if (taskletsTakeOutputs(given, outputs, tasklets) == onOutputs) return out;
  const TaskletSplit wanted = onOutputs ? TaskletSplit::Outputs : TaskletSplit::Reduction;
  if (named != m.choices.end())
    throw InputError(named->at.str() + ": " + named->valueText() + " contradicts level 3 at " +
                     third.at.str() + ", whose tasklets " + kind + " (" + std::to_string(outputs) +
                     " outputs per " + "unit, " + std::to_string(tasklets) + " tasklets): that is \"" +
                     taskletSplitText(wanted) + "\"");
  MappingChoice c;
  c.key = kTaskletSplitKey;
  c.text = taskletSplitText(wanted);
  c.at = third.at;
  out.push_back(std::move(c));
  return out;
}

// The JSON form of a one-map mapping with candidate `id`'s kernel-level choices other than the backend's own:
// the tile as "block_bytes", every other axis by its text (tasklets are level 3). Empty when it has none.
std::string choicesJson(const CandidateIds& ids, std::uint64_t id, const std::string& target,
                        const std::vector<std::vector<std::int64_t>>& levels) {
  nlohmann::json choices = nlohmann::json::object(), out;
  const std::vector<int> choice = ids.choiceOf(id);
  for (std::size_t a = 0; a < ids.axes().size(); ++a) {
    const ChoiceAxis& axis = ids.axes()[a];
    const auto index = static_cast<std::size_t>(choice[a]);
    if (index == 0 || axis.key == kTaskletsAxis) continue;
    if (axis.key == kTileAxis)
      out["block_bytes"] = axis.values[index];
    else
      choices[axis.key] = axis.texts[index];
  }
  if (out.empty() && choices.empty()) return "";
  out["target"] = target;
  out["maps"] = {{{"name", "M1"}, {"levels", levels}}};
  if (!choices.empty()) out["choices"] = choices;
  return out.dump();
}

}  // namespace

std::vector<std::pair<std::string, double>> mappingSettings(const MappingSpec& m, const Backend& b) {
  const Levels levels = levelsOf(b);
  const MappingMap& map = checkedMap(m, b, levels);
  std::vector<std::pair<std::string, double>> out;
  auto inRange = [&](const char* key, std::int64_t v, const MappingTuple* t, const std::string& what) {
    const Parameter& p = *b.param(key);
    if (static_cast<double>(v) < p.min || static_cast<double>(v) > p.max)
      throw InputError((t ? t->at.str() : m.file + ": block_bytes") + ": " + what + " " + std::to_string(v) +
                       " is outside " + key + "'s range " + std::to_string(static_cast<std::int64_t>(p.min)) +
                       " to " + std::to_string(static_cast<std::int64_t>(p.max)) + " (" + p.source + ")");
    out.emplace_back(key, static_cast<double>(v));
  };
  if (levels.threads) {
    const auto n = product(map.tuples[2].entries);
    inRange(kTaskletParam, n.value_or(std::numeric_limits<std::int64_t>::max()), &map.tuples[2],
            "level 3 (" + levels.names[2] + ") " + tupleText(map.tuples[2]) + ":");
  }
  if (m.blockBytes) {
    if (!b.param(kBlockParam))
      throw InputError(m.file + ": block_bytes: backend " + b.name + " has no WRAM block (" + kBlockParam +
                       ")");
    inRange(kBlockParam, *m.blockBytes, nullptr, "block of");
  }
  return out;
}

MappedSchedule mappedSchedule(const MappingSpec& m, const Problem& p) {
  const Backend& b = p.backend();
  const Levels levels = levelsOf(b);
  const MappingMap& map = checkedMap(m, b, levels);
  const Kernel& k = p.kernel();
  const DimensionSets& sets = p.space().sets();
  const Resources& res = p.space().resources();
  checkProducts(map, k, sets);
  for (int level = 0; level < 2; ++level) {
    const int limit = level == 0 ? res.groups : res.coresPerGroup;
    levelUnits(map.tuples[static_cast<std::size_t>(level)],
               std::to_string(level + 1) + " (" + levels.names[level] + ")", limit,
               "the " + std::to_string(limit) + " " + levels.names[level] + " of " + b.name);
  }

  std::vector<PartChoice> parts(sets.sets.size());
  std::vector<bool> placed(k.loops.size(), false);
  for (std::size_t s = 0; s < sets.sets.size(); ++s) {
    const DimensionSet& set = sets.sets[s];
    int split = -1;
    for (int v : set.vars) {
      placed[static_cast<std::size_t>(v)] = true;
      const auto u = static_cast<std::size_t>(v);
      if (map.tuples[0].entries[u] * map.tuples[1].entries[u] == 1) continue;
      if (split >= 0)
        throw InputError(map.at.str() + ": loops " + k.loops[static_cast<std::size_t>(split)].var + " and " +
                         k.loops[u].var + " index the same tensor dimensions (" + dimensionSetLabel(k, set) +
                         "); a draft splits such a set along one of them");
      split = v;
      parts[s].groups = static_cast<int>(map.tuples[0].entries[u]);
      parts[s].cores = static_cast<int>(map.tuples[1].entries[u]);
    }
    for (std::size_t c = 0; c < set.candidates.size() && split >= 0; ++c)
      if (set.candidates[c].var == split) {
        parts[s].rep = static_cast<int>(c);
        break;
      }
  }
  for (std::size_t v = 0; v < k.loops.size(); ++v)
    if (!placed[v] && map.tuples[0].entries[v] * map.tuples[1].entries[v] > 1)
      throw InputError(map.at.str() + ": loop " + k.loops[v].var +
                       " indexes no tensor dimension a draft can split; give it 1 at levels 1 and 2");

  MappedSchedule out;
  out.draft = p.space().draft(p.space().idOf(parts));
  const MappingTuple& third = map.tuples[2];
  const std::int64_t thirdUnits = product(third.entries).value_or(0);
  MappingSpec chosen = m;
  std::string layout;
  if (levels.threads) chosen.choices = choicesWithLevelThree(m, map, p, layout);
  out.notes.push_back(
      levels.threads
          ? "level 3 (" + levels.names[2] + ") " + tupleText(third) + ": " + std::to_string(thirdUnits) +
                " tasklets" + (layout.empty() ? "" : "; " + layout)
          : "level 3 (" + levels.names[2] + ") " + tupleText(third) +
                ": the code generator lays the lanes along the contiguous dimension itself; this tuple is "
                "taken as part of each core's share");
  out.notes.push_back("leaf " + tupleText(map.tuples[3]) + ": each " +
                      (levels.threads ? std::string("tasklet") : std::string("lane")) + "'s share");
  if (!chosen.choices.empty()) out.draft = withChoices(chosen, p, out.draft, out.notes);
  return out;
}

MappingText mappingTextOf(const Problem& p, const Draft& d, int threads) {
  const Kernel& k = p.kernel();
  const DimensionSets& sets = p.space().sets();
  const std::size_t n = k.loops.size();
  std::vector<std::int64_t> level1(n, 1), level2(n, 1), level3(n, 1), leaf(n);
  for (std::size_t j = 0; j < n; ++j) leaf[j] = sets.loopHi[j] - sets.loopLo[j];
  MappingText out;
  if (d.parts.size() != sets.sets.size()) {
    out.reason = "a candidate of " + p.backend().family + "'s own space, not a draft of DCC's partitions";
    return out;
  }
  for (std::size_t s = 0; s < d.parts.size() && s < sets.sets.size(); ++s) {
    const PartChoice& c = d.parts[s];
    if (c.groups * c.cores == 1) continue;
    const RepresentativeMapping& rep = sets.sets[s].candidates[static_cast<std::size_t>(c.rep)];
    const auto j = static_cast<std::size_t>(rep.var);
    const std::int64_t units = std::int64_t{c.groups} * c.cores;
    if (rep.extent != leaf[j] || leaf[j] % units != 0) {
      out.reason = "loop " + k.loops[j].var + " (" + std::to_string(leaf[j]) + ") over " +
                   std::to_string(units) + " units leaves unequal tiles or indexes " + mappingLabel(k, rep) +
                   " other than one to one; CoMoNM's notation needs exact divisions";
      return out;
    }
    level1[j] = c.groups;
    level2[j] = c.cores;
    leaf[j] /= units;
  }
  // Level 3 where the code generator lays the tasklets (taskletsTakeOutputs under the candidate's split):
  // each factor of `threads` on the loop of that kind with the largest share it divides.
  const std::vector<bool> reduced = reducedLoops(k);
  const CandidateIds ids = targetOf(p.backend()).candidateIds(p);
  const auto split = static_cast<TaskletSplit>(
      ids.value(d.id, kTaskletSplitKey, static_cast<std::int64_t>(TaskletSplit::Auto)));
  const bool reduces = std::find(reduced.begin(), reduced.end(), true) != reduced.end();
  const bool onOutputs = !reduces || taskletsTakeOutputs(split, outputsPerUnit(leaf, reduced), threads);
  for (int t = threads, f = 2; t > 1;) {
    if (t % f != 0) {
      ++f;
      continue;
    }
    std::size_t best = n;
    for (std::size_t j = 0; j < n; ++j)
      if (reduced[j] != onOutputs && leaf[j] % f == 0 && (best == n || leaf[j] > leaf[best])) best = j;
    if (best == n) {
      out.reason = std::to_string(threads) + " tasklets do not divide the DPUs' shares of the loops they " +
                   (onOutputs ? "take outputs of" : "split the reduction of") + " exactly";
      return out;
    }
    level3[best] *= f;
    leaf[best] /= f;
    t /= f;
  }
  auto tuple = [](const std::vector<std::int64_t>& xs) {
    MappingTuple t;
    t.entries = xs;
    return tupleText(t);
  };
  std::string name = lettersOf(p.backend().name);
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  out.text = name + "_map: [ M1: {" + tuple(level1) + ", " + tuple(level2) + ", " + tuple(level3) + ", " +
             tuple(leaf) + "} ]";
  out.json = choicesJson(ids, d.id, name, {level1, level2, level3, leaf});
  return out;
}

}  // namespace pim
