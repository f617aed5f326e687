// SPDX-License-Identifier: Apache-2.0
#include "views/walkthrough.h"

#include <QObject>
#include <algorithm>
#include <array>
#include <exception>
#include <map>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/mapping/bank_layout.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/prune/pruner.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "views/walkthrough_pictures.h"

namespace pimgui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }
QString n(std::uint64_t v) { return QString::number(v); }

QString row(const QStringList& cells, bool header = false) {
  const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
  QString r = QStringLiteral("<tr>");
  for (const QString& c : cells) r += QStringLiteral("<%1>%2</%1>").arg(tag, c);
  return r + QStringLiteral("</tr>");
}
void setPicture(WalkthroughStep& s, WalkthroughPicture pic) {
  s.picture = std::move(pic.image);
  s.drawn = std::move(pic.drawn);
}

QString table(const QString& rows) {
  return QStringLiteral("<table border='1' cellspacing='0' cellpadding='4'>") + rows +
         QStringLiteral("</table>");
}

// Walking the space in id order for examples is cheap for teaching-size problems; the cap keeps a huge space
// from freezing the dialog (rules without an example in the first drafts just say so).
constexpr std::uint64_t kExampleWalkCap = 200000;

WalkthroughStep dimensionSetsStep(const pim::Kernel& k, const pim::DraftSpace& space) {
  WalkthroughStep s;
  s.title = QObject::tr("Dimension sets and reference sets");
  s.explanation = QObject::tr(
      "Every tensor dimension collects the index functions that reference it (its reference set). Dimensions "
      "whose functions share a loop variable must be partitioned together, so they join one complex "
      "dimension "
      "set. Each set is tiled independently; its candidates are the single-variable functions that can act "
      "as "
      "the representative mapping. The set marked SIMD is the contiguous one SIMD lanes run along.");
  QString rows = row({QObject::tr("set"), QObject::tr("dimensions = {reference set}"), QObject::tr("extents"),
                      QObject::tr("representative candidates"), QObject::tr("rule-1 classes")},
                     true);
  const auto& sets = space.sets().sets;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    QStringList extents, cands;
    for (const auto& d : sets[i].dims) extents << QString::number(d.extent);
    for (const auto& c : sets[i].candidates) cands << q(pim::mappingLabel(k, c));
    rows += row({QStringLiteral("ds%1%2").arg(i).arg(
                     static_cast<int>(i) == space.sets().simdSet ? QObject::tr(" (SIMD)") : QString()),
                 q(pim::dimensionSetLabel(k, sets[i])), extents.join(QStringLiteral(", ")),
                 cands.join(QStringLiteral(", ")), QString::number(sets[i].classCount)});
  }
  s.body = QObject::tr("<p><b>%1</b> dimension sets for <b>%2</b>.</p>").arg(sets.size()).arg(q(k.name)) +
           table(rows);
  s.numbers["dimension_sets"] = sets.size();
  setPicture(s, dimensionGraphPicture(space));
  return s;
}

WalkthroughStep allocationsStep(const pim::DraftSpace& space) {
  WalkthroughStep s;
  s.title = QObject::tr("Data-tile allocations");
  s.explanation = QObject::tr(
      "A data tile gives each part (dimension set) some PIM groups and some cores per group. The search is a "
      "depth-first walk with memoisation: the groups left for the next part are the groups available divided "
      "by those already allocated, and likewise for cores. Group and core chains divide independently, so "
      "their counts multiply.");
  const auto& r = space.resources();
  QString rows = row({QObject::tr("quantity"), QObject::tr("count")}, true);
  rows += row({QObject::tr("resources: groups x cores per group, SIMD lanes"),
               QStringLiteral("%1 x %2, %3").arg(r.groups).arg(r.coresPerGroup).arg(r.simdLanes)});
  rows += row({QObject::tr("group allocation chains"), n(space.groupChains())});
  rows += row({QObject::tr("core allocation chains"), n(space.coreChains())});
  rows += row({QObject::tr("data-tile allocations (group x core chains)"),
               n(space.groupChains() * space.coreChains())});
  s.body = table(rows);
  s.numbers["group_chains"] = space.groupChains();
  s.numbers["core_chains"] = space.coreChains();
  s.numbers["allocations"] = space.groupChains() * space.coreChains();
  setPicture(s, allocationTreePicture(space));
  return s;
}

WalkthroughStep draftsStep(const pim::DraftSpace& space) {
  WalkthroughStep s;
  s.title = QObject::tr("Tiling drafts");
  s.explanation = QObject::tr(
      "A draft picks, for every part, its allocation and one representative mapping: [groups, cores, "
      "representative]. Drafts = allocations x representative combinations. Each draft has a dense id, so "
      "none has to be stored.");
  QString rows =
      row({QObject::tr("id"), QObject::tr("draft [groups, cores, representative] per part")}, true);
  const std::uint64_t shown = std::min<std::uint64_t>(space.size(), 6);
  for (std::uint64_t id = 0; id < shown; ++id) rows += row({n(id), q(space.label(space.draft(id)))});
  s.body =
      QObject::tr("<p><b>%1</b> drafts = %2 allocations x %3 representative combinations. The first %4:</p>")
          .arg(n(space.size()))
          .arg(n(space.groupChains() * space.coreChains()))
          .arg(n(space.repCombinations()))
          .arg(shown) +
      table(rows);
  s.numbers["drafts"] = space.size();
  s.numbers["rep_combinations"] = space.repCombinations();
  return s;
}

/// `examples`: an example draft per rule number (the paper's, for its section 4.2 space); `follow`: the
/// draft the later steps follow, outlined in the picture.
WalkthroughStep pruningStep(const pim::DraftSpace& space, std::map<int, std::uint64_t> examples,
                            std::uint64_t follow) {
  WalkthroughStep s;
  s.title = QObject::tr("Pruning");
  s.explanation = QObject::tr(
      "Three rules remove drafts that cannot be better than one kept: (1) redundant — representatives with "
      "the "
      "same function and extent give identical partitions; (2) SIMD alignment — the SIMD part's per-core "
      "size "
      "must fill whole SIMD lanes; (3) performance equivalence — the same groups and per-core sizes perform "
      "alike, only the first is kept. The pruner counts without enumerating.");
  const pim::Pruner pruner(space);
  const pim::PruneCounts counts = pruner.counts();
  // Rules without a given example get the first draft they remove in id order.
  std::uint64_t walked = 0;
  space.forEach([&](const pim::Draft& d) {
    if (++walked > kExampleWalkCap) return false;
    const pim::Verdict v = pruner.why(d.id);
    if (!v.kept) examples.emplace(v.rule, d.id);  // keeps a given example
    return examples.size() < counts.rules.size();
  });
  QString rows = row(
      {QObject::tr("rule"), QObject::tr("removed"), QObject::tr("example draft"), QObject::tr("why")}, true);
  for (const pim::RuleCount& r : counts.rules) {
    QString ex = QObject::tr("–"),
            why = r.inForce ? QObject::tr("no example in the first drafts") : QObject::tr("not in force");
    if (const auto example = examples.find(r.number); example != examples.end()) {
      const std::uint64_t id = example->second;
      const pim::Verdict v = pruner.why(id);
      ex = QStringLiteral("<b>#%1</b> %2").arg(n(id), q(space.label(space.draft(id))));
      why = q(v.reason);
    }
    rows += row({QStringLiteral("%1 %2").arg(r.number).arg(q(r.name)), n(r.removed), ex, why});
    s.numbers["rule" + std::to_string(r.number)] = r.removed;
  }
  s.body = QObject::tr("<p>generated <b>%1</b> → remaining <b>%2</b></p>")
               .arg(n(counts.generated))
               .arg(n(counts.remaining)) +
           table(rows);
  s.numbers["generated"] = counts.generated;
  s.numbers["remaining"] = counts.remaining;
  setPicture(s, draftGridPicture(space, pruner, follow));
  return s;
}

QString axes(const std::vector<pim::IndexSet>& a) {
  QStringList out;
  for (const auto& x : a) out << q(x.str());
  return out.join(QStringLiteral(" × "));
}

WalkthroughStep tilesStep(const pim::Kernel& k, const pim::DraftSpace& space, const pim::Draft& d,
                          const QString& why) {
  WalkthroughStep s;
  s.title = QObject::tr("Data tile → compute tile → tensor tile");
  s.explanation = QObject::tr(
      "For one core, each part's data tile is its slice of the representative dimension. Inverting the "
      "representative function gives the compute tile (the loop ranges the core runs); applying every "
      "reference to the compute tile gives the tensor tiles it needs. Non-contiguous indices are either "
      "expanded to a covering range (i) or kept exact (ii).");
  const pim::TileMapping expand = pim::mapDraft(space, d, pim::IndexingStrategy::Expand);
  const pim::TileMapping exact = pim::mapDraft(space, d, pim::IndexingStrategy::Exact);
  const pim::CoreTile& ce = expand.at(0, 0);
  const pim::CoreTile& cx = exact.at(0, 0);
  const auto vars = k.loopVarNames();
  QString body = QObject::tr("<p>Draft <b>#%1</b> %2 %3 — group 0, core 0 of %4 x %5.</p>")
                     .arg(n(d.id), q(space.label(d)), why)
                     .arg(expand.groupsUsed)
                     .arg(expand.coresPerGroup);
  QString dt = row({QObject::tr("part"), QObject::tr("representative"), QObject::tr("data tile")}, true);
  for (int p = 0; p < space.partCount(); ++p)
    dt += row({QStringLiteral("ds%1").arg(p), q(pim::mappingLabel(k, space.representative(p, d.parts[p]))),
               q(ce.dataTiles[p].str())});
  QString ct = row({QObject::tr("loop variable"), QObject::tr("compute tile")}, true);
  for (std::size_t v = 0; v < vars.size() && v < ce.computeTile.size(); ++v)
    ct += row({q(vars[v]), q(ce.computeTile[v].str())});
  QString tt = row({QObject::tr("reference"), QObject::tr("(i) expand"), QObject::tr("(ii) exact")}, true);
  const auto refs = k.references();
  for (std::size_t r = 0; r < refs.size(); ++r) {
    QStringList idx;
    for (const auto& e : refs[r].second.index)
      idx << QStringLiteral("[") + q(e.str(vars)) + QStringLiteral("]");
    tt += row({q(k.tensors[refs[r].second.tensor].name) + idx.join(QString()), axes(ce.references[r]),
               axes(cx.references[r])});
  }
  s.body = body + table(dt) + QStringLiteral("<br>") + table(ct) + QStringLiteral("<br>") + table(tt);
  s.numbers["draft"] = d.id;
  s.numbers["cores"] = static_cast<std::uint64_t>(expand.groupsUsed) * expand.coresPerGroup;
  setPicture(s, tilesPicture(space, d));
  return s;
}

WalkthroughStep layoutStep(const pim::Kernel& k, const pim::DraftSpace& space, const pim::Draft& d,
                           const pim::Backend& b) {
  WalkthroughStep s;
  s.title = QObject::tr("Bank layout");
  s.explanation = QObject::tr(
      "The tensor tiles are placed in the banks of each core's PIM group. Cores of a group receive broadcast "
      "commands with the same address offsets, so smaller tiles are padded to the largest one.");
  try {
    const pim::BankLayout L = pim::placeOnBanks(k, pim::mapDraft(space, d, pim::IndexingStrategy::Exact), b);
    QString rows =
        row({QObject::tr("pseudo-channel"), QObject::tr("bank"), QObject::tr("group"), QObject::tr("core"),
             QObject::tr("bytes"), QObject::tr("padding"), QObject::tr("rows")},
            true);
    int listed = 0;
    for (const auto& p : L.banks) {
      if (p.group < 0 || listed >= 12) continue;  // a dozen banks show the pattern; the totals cover the rest
      ++listed;
      rows += row({QString::number(p.pseudoChannel), QString::number(p.bank), QString::number(p.group),
                   QString::number(p.core), QString::number(p.bytes), QString::number(p.paddingBytes),
                   QString::number(p.rowsTouched)});
    }
    s.body = QObject::tr(
                 "<p>Draft <b>#%1</b> on <b>%2</b>: <b>%3</b> banks used, %4 bytes placed, %5 bytes "
                 "padding. First %6 used banks:</p>")
                 .arg(n(d.id), q(b.name))
                 .arg(L.banksUsed)
                 .arg(L.placedBytes)
                 .arg(L.paddingBytes)
                 .arg(listed) +
             table(rows);
    s.numbers["banks_used"] = static_cast<std::uint64_t>(L.banksUsed);
    s.numbers["placed_bytes"] = static_cast<std::uint64_t>(L.placedBytes);
    setPicture(s, bankLayoutPicture(L));
  } catch (const std::exception& e) {
    s.body = QObject::tr("<p>Cannot place draft #%1 on %2: %3</p>").arg(n(d.id), q(b.name), q(e.what()));
  }
  return s;
}

WalkthroughStep timelineStep(const pim::Problem& p, const pim::Draft& d, const QString& note) {
  WalkthroughStep s;
  s.title = QObject::tr("Simulated timeline");
  s.explanation = QObject::tr(
      "The draft is lowered to the backend's DRAM/PIM command program and simulated bank by bank. Its time "
      "splits into three phases run one after the other: input rearrangement (moving data into the layout), "
      "compute in the PIM cores, and output rearrangement back to the host layout.");
  try {
    const pim::Evaluation e = pim::evaluateDraft(p, d, pim::EvalOptions{});
    const char* names[] = {"input rearrangement", "compute", "output rearrangement"};
    const char* colours[] = {"#4e79a7", "#f28e2b", "#59a14f"};
    QString rows =
        row({QObject::tr("phase"), QObject::tr("cycles"), QObject::tr("µs"), QObject::tr("share")}, true);
    for (int ph = 0; ph < 3; ++ph) {
      const double share = e.totalCycles ? 100.0 * static_cast<double>(e.cycles[ph]) / e.totalCycles : 0;
      rows += row({QStringLiteral("<font color='%1'>■</font> %2").arg(colours[ph], QObject::tr(names[ph])),
                   QString::number(e.cycles[ph]), QString::number(e.ns(ph) / 1e3, 'f', 3),
                   QString::number(share, 'f', 1) + QStringLiteral("%")});
    }
    s.body = QObject::tr("<p><b>%1</b>, draft <b>#%2</b> %3 %4</p>")
                 .arg(q(p.title()), n(d.id), q(p.space().label(d)), note) +
             table(rows) +
             QObject::tr("<p>total <b>%1</b> cycles = <b>%2 µs</b>, energy %3 µJ, %4 commands, %5 banks.</p>")
                 .arg(e.totalCycles)
                 .arg(e.timeNs / 1e3, 0, 'f', 3)
                 .arg(e.energyPj / 1e6, 0, 'f', 3)
                 .arg(e.commands)
                 .arg(e.unitsUsed);
    s.numbers["total_cycles"] = static_cast<std::uint64_t>(e.totalCycles);
    for (int ph = 0; ph < 3; ++ph)
      s.numbers["phase" + std::to_string(ph)] = static_cast<std::uint64_t>(e.cycles[ph]);
    setPicture(s, timelinePicture(e));
  } catch (const std::exception& e) {
    s.body = QObject::tr("<p>Cannot simulate draft #%1: %2</p>").arg(n(d.id), q(e.what()));
  }
  return s;
}

int candidate(const pim::Kernel& k, const pim::DraftSpace& space, int set, const std::string& label) {
  const auto& c = space.sets().sets[set].candidates;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (pim::mappingLabel(k, c[i]) == label) return static_cast<int>(i);
  throw pim::InputError("dcc_example: no candidate " + label);
}

}  // namespace

std::optional<pim::Draft> bestOfFirstKept(const pim::Problem& p, std::size_t limit) {
  const pim::DraftCandidateSpace kept(p.space());
  pim::EvalOptions o;
  o.keepUnitStats = false;
  std::optional<pim::Draft> best;
  double bestNs = 0;
  for (const pim::Draft& d : pim::firstKept(kept, limit)) {
    try {
      const double t = pim::evaluateDraft(p, d, o).timeNs;
      if (!best || t < bestNs) best = d, bestNs = t;
    } catch (const std::exception&) {
      // A draft whose tiles do not fit the banks is not a candidate.
    }
  }
  return best;
}

std::vector<WalkthroughStep> exampleWalkthrough() {
  const pim::Kernel kernel = pim::loadKernelFile(pim::dataDir() + "/kernels/dcc_example.pim");
  const pim::Shape shape = pim::parseShape(kernel, "n=12,m=3,p=16");
  const pim::DraftSpace space(kernel, pim::buildDimensionSets(kernel, shape), pim::Resources{2, 4, 16});
  auto id = [&](int g0, int c0, const char* r0, int g1, int c1, const char* r1, int g2, int c2,
                const char* r2) {
    const std::vector<pim::PartChoice> parts = {{g0, c0, candidate(kernel, space, 0, r0)},
                                                {g1, c1, candidate(kernel, space, 1, r1)},
                                                {g2, c2, candidate(kernel, space, 2, r2)}};
    return space.idOf(parts);
  };
  // The paper's examples: draft 5 (rule 1, twin of 6), four cores on (B1, C1) (rule 2), draft 6 (rule 3).
  const std::map<int, std::uint64_t> examples = {{1, id(2, 4, "C0^b", 1, 1, "A1^i", 1, 1, "B1^k")},
                                                 {2, id(1, 1, "A0^b", 1, 1, "A1^i", 1, 4, "B1^k")},
                                                 {3, id(2, 4, "A0^b", 1, 1, "A1^i", 1, 1, "B1^k")}};
  const pim::Draft d7 = space.draft(id(1, 4, "C0^b", 2, 1, "A1^i*2", 1, 1, "B1^k"));

  std::vector<WalkthroughStep> steps;
  steps.push_back(dimensionSetsStep(kernel, space));
  steps.push_back(allocationsStep(space));
  steps.push_back(draftsStep(space));
  steps.push_back(pruningStep(space, examples, d7.id));
  steps.push_back(tilesStep(kernel, space, d7, QObject::tr("(the paper's draft 7)")));
  steps.push_back(layoutStep(kernel, space, d7, pim::builtinBackends().get("hbm-pim")));

  // The example has no backend of its own (its 2 x 4 cores are no hardware's), so draft 7 has no program to
  // simulate: the timeline shows a library kernel on a real backend instead, and says so.
  pim::Kernel gemv = pim::KernelLibrary::builtin().get("gemv");
  pim::Shape gs = pim::parseShape(gemv, "b=1,out=256,in=256");
  const pim::Problem problem(pim::builtinBackends().get("hbm-pim"), std::move(gemv), std::move(gs));
  if (auto best = bestOfFirstKept(problem, kWalkthroughCandidates))
    steps.push_back(timelineStep(
        problem, *best,
        QObject::tr("(best of the first %1 kept drafts). <i>The draft changes here: the section 4.2 example "
                    "runs on 2 x 4 abstract cores, which no hardware has, so draft 7 has no program to time; "
                    "this step times a GEMV on hbm-pim instead.</i>")
            .arg(kWalkthroughCandidates)));
  return steps;
}

std::vector<WalkthroughStep> problemWalkthrough(std::shared_ptr<const pim::Problem> problem,
                                                std::optional<std::uint64_t> draft) {
  const pim::Problem& p = *problem;
  std::optional<pim::Draft> focus;
  QString note;
  if (draft) {
    focus = p.space().draft(*draft);
  } else {
    focus = bestOfFirstKept(p, kWalkthroughCandidates);
    note = QObject::tr("(best of the first %1 kept drafts)").arg(kWalkthroughCandidates);
  }
  if (!focus) throw pim::InputError(p.title() + ": no kept draft simulates");
  std::vector<WalkthroughStep> steps;
  steps.push_back(dimensionSetsStep(p.kernel(), p.space()));
  steps.push_back(allocationsStep(p.space()));
  steps.push_back(draftsStep(p.space()));
  steps.push_back(pruningStep(p.space(), {}, focus->id));
  steps.push_back(tilesStep(p.kernel(), p.space(), *focus, note));
  steps.push_back(layoutStep(p.kernel(), p.space(), *focus, p.backend()));
  steps.push_back(timelineStep(p, *focus, note));
  return steps;
}

}  // namespace pimgui
