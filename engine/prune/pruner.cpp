// SPDX-License-Identifier: Apache-2.0
#include "engine/prune/pruner.h"

#include <algorithm>

namespace pim {
namespace {

// Set of 64-bit keys with O(1) clear (a generation stamp per slot): the first-seen test of equivalence rules
// runs once per part choice, millions of times per exploration.
class FlatKeySet {
 public:
  explicit FlatKeySet(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < 2 * expected) cap <<= 1;
    m_keys.resize(cap);
    m_stamp.assign(cap, 0);
    m_mask = cap - 1;
  }
  void clear() { ++m_generation; }
  bool insert(std::uint64_t key) {
    for (std::size_t i = mix(key) & m_mask;; i = (i + 1) & m_mask) {
      if (m_stamp[i] != m_generation) {
        m_stamp[i] = m_generation;
        m_keys[i] = key;
        return true;
      }
      if (m_keys[i] == key) return false;
    }
  }

 private:
  static std::size_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    return static_cast<std::size_t>(x ^ (x >> 33));
  }
  std::vector<std::uint64_t> m_keys;
  std::vector<std::uint32_t> m_stamp;
  std::uint32_t m_generation = 1;
  std::size_t m_mask = 0;
};

std::uint64_t stateKey(int part, int groups, int cores) {
  return (static_cast<std::uint64_t>(part) << 40) | (static_cast<std::uint64_t>(groups) << 20) |
         static_cast<std::uint64_t>(cores);
}

}  // namespace

Pruner::Pruner(const DraftSpace& space, std::vector<bool> enabled, const PruneRuleRegistry& rules)
    : m_space(space) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    m_all.push_back(&rules.at(i));
    const bool on = enabled.empty() || (i < enabled.size() && enabled[i]);
    m_inForce.push_back(on && m_all[i]->inForce(space));
    if (m_inForce.back()) m_active.push_back(m_all[i]);
  }
}

template <typename Fn>
void Pruner::classify(int part, int groups, int cores, Fn&& onChoice) const {
  const int reps = static_cast<int>(m_space.sets().sets[part].candidates.size());
  // At most cores * reps keys are inserted per group count (keys are first-seen per g).
  std::vector<FlatKeySet> seen(m_active.size(), FlatKeySet(static_cast<std::size_t>(cores) * reps));
  for (int g = 1; g <= groups; ++g) {
    for (auto& s : seen) s.clear();  // every key includes the group count, so first-seen is decided per g
    for (int c = 1; c <= cores; ++c) {
      for (int r = 0; r < reps; ++r) {
        const PartChoice choice{g, c, r};
        std::size_t level = 0;
        for (; level < m_active.size(); ++level) {
          const IPruneRule& rule = *m_active[level];
          if (!rule.keeps(m_space, part, choice)) break;
          if (rule.hasKey() && !seen[level].insert(rule.key(m_space, part, choice))) break;
        }
        onChoice(choice, level);
      }
    }
  }
}

const Pruner::State& Pruner::state(int part, int groups, int cores) const {
  const auto key = stateKey(part, groups, cores);
  if (auto it = m_states.find(key); it != m_states.end()) return it->second;
  State st;
  st.count.assign(m_active.size() + 1, 0);
  if (part == m_space.partCount()) {
    std::fill(st.count.begin(), st.count.end(), 1);
  } else {
    classify(part, groups, cores, [&](const PartChoice& ch, std::size_t level) {
      const State& next = state(part + 1, groups / ch.groups, cores / ch.cores);
      for (std::size_t l = 0; l <= level; ++l) st.count[l] += next.count[l];
      if (level == m_active.size()) {
        st.kept.push_back(
            {ch, m_space.groupOffset(part, groups, ch.groups), m_space.coreOffset(part, cores, ch.cores)});
      }
    });
  }
  return m_states.emplace(key, std::move(st)).first->second;
}

PruneCounts Pruner::counts() const {
  const State& root = state(0, m_space.resources().groups, m_space.resources().coresPerGroup);
  PruneCounts out;
  out.generated = root.count[0];
  std::size_t level = 0;
  for (std::size_t i = 0; i < m_all.size(); ++i) {
    RuleCount rc{m_all[i]->number(), std::string(m_all[i]->name()), m_inForce[i], 0};
    if (m_inForce[i]) {
      rc.removed = root.count[level] - root.count[level + 1];
      ++level;
    }
    out.rules.push_back(rc);
  }
  out.remaining = root.count[m_active.size()];
  return out;
}

void Pruner::forEachKept(const std::function<bool(const Draft&)>& fn) const {
  const int n = m_space.partCount();
  const std::uint64_t coreChains = m_space.coreChains(), reps = m_space.repCombinations();
  Draft d;
  d.parts.resize(n);
  bool stop = false;
  // Ids are accumulated part by part (group offset, core offset, representative digit) on the way down.
  struct Walk {
    const Pruner& self;
    Draft& d;
    bool& stop;
    const std::function<bool(const Draft&)>& fn;
    std::uint64_t coreChains, reps;
    void operator()(int part, int groups, int cores, std::uint64_t g, std::uint64_t c, std::uint64_t r) {
      if (part == static_cast<int>(d.parts.size())) {
        d.id = (g * coreChains + c) * reps + r;
        if (!fn(d)) stop = true;
        return;
      }
      for (const KeptChoice& k : self.state(part, groups, cores).kept) {
        if (stop) return;
        d.parts[part] = k.choice;
        (*this)(part + 1, groups / k.choice.groups, cores / k.choice.cores, g + k.groupOffset,
                c + k.coreOffset,
                r + static_cast<std::uint64_t>(k.choice.rep) * self.m_space.repStride(part));
      }
    }
  };
  Walk{*this, d, stop, fn, coreChains, reps}(0, m_space.resources().groups, m_space.resources().coresPerGroup,
                                             0, 0, 0);
}

std::optional<Verdict> Pruner::judgePart(const Draft& d, int part, int groups, int cores,
                                         std::size_t level) const {
  const IPruneRule& rule = *m_active[level];
  const PartChoice& mine = d.parts[part];
  std::optional<PartChoice> twin;
  if (!rule.keeps(m_space, part, mine)) {
    twin = rule.twinOf(m_space, part, mine);
  } else if (rule.hasKey()) {
    // The first choice at this state that survives the earlier rules and has the same key is the kept one.
    const auto myKey = rule.key(m_space, part, mine);
    classify(part, groups, cores, [&](const PartChoice& ch, std::size_t passed) {
      if (!twin && passed >= level && ch.groups == mine.groups && rule.keeps(m_space, part, ch) &&
          rule.key(m_space, part, ch) == myKey) {
        twin = ch;
      }
    });
    if (twin && *twin == mine) return std::nullopt;
  } else {
    return std::nullopt;
  }
  Verdict v;
  v.draft = d.id;
  v.kept = false;
  v.rule = rule.number();
  v.ruleName = std::string(rule.name());
  v.part = part;
  v.reason = rule.reason(m_space, part, mine, twin ? &*twin : nullptr);
  if (twin) {
    Draft t = d;
    t.parts[part] = *twin;
    v.twin = m_space.idOf(t.parts);
  }
  return v;
}

Verdict Pruner::why(std::uint64_t id) const {
  const Draft d = m_space.draft(id);
  std::vector<std::pair<int, int>> avail;
  int g = m_space.resources().groups, c = m_space.resources().coresPerGroup;
  for (const auto& p : d.parts) {
    avail.emplace_back(g, c);
    g /= p.groups;
    c /= p.cores;
  }
  for (std::size_t level = 0; level < m_active.size(); ++level) {
    for (int part = 0; part < m_space.partCount(); ++part) {
      if (auto v = judgePart(d, part, avail[part].first, avail[part].second, level)) {
        // The kept draft this one stands for: its twin, or the twin's own kept twin (ids strictly decrease).
        if (v->twin) {
          const Verdict tv = why(*v->twin);
          v->keptTwin = tv.kept ? v->twin : tv.keptTwin;
        }
        return *v;
      }
    }
  }
  Verdict v;
  v.draft = id;
  v.reason = "kept: survives every rule in force";
  return v;
}

}  // namespace pim
