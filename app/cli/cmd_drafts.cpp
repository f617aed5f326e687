// SPDX-License-Identifier: Apache-2.0
// `drafts`, `why` and `ir`: schedule generation, pruning verdicts and the data-centric IR of one draft.
#include <chrono>
#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/codegen/ir_text.h"
#include "engine/common/error.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/target/registry.h"

namespace pim::cli {
namespace {

struct DraftsOptions {
  ProblemOptions problem;
  bool noPrune = false;
  std::size_t limit = 0;
  bool json = false;
};

struct DraftOptions {
  ProblemOptions problem;
  std::uint64_t draft = 0;
  std::string indexing = "exact";
  bool json = false;
};

void runDrafts(const DraftsOptions& o) {
  const auto problem = o.problem.build();
  const DraftSpace& space = problem->space();
  const auto start = std::chrono::steady_clock::now();
  const auto candidates =
      targetOf(problem->backend())
          .candidates(*problem, o.noPrune ? std::vector<bool>(PruneRuleRegistry::builtin().size(), false)
                                          : std::vector<bool>{});
  const PruneCounts counts = candidates->counts();
  // Stream every kept draft once, as a consumer would, so the time covers producing them, not just counting.
  std::uint64_t streamed = 0;
  if (!o.noPrune) {
    candidates->forEachKept([&](const Draft&) {
      ++streamed;
      return true;
    });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<Draft> first = firstKept(*candidates, o.limit);

  if (o.json) {
    nlohmann::json pruned = nlohmann::json::object(), rules = nlohmann::json::array();
    for (const auto& r : counts.rules) {
      pruned["rule" + std::to_string(r.number)] = r.removed;
      rules.push_back(
          {{"rule", r.number}, {"name", r.name}, {"in_force", r.inForce}, {"removed", r.removed}});
    }
    nlohmann::json sets = nlohmann::json::array();
    for (const auto& ds : space.sets().sets) sets.push_back(dimensionSetLabel(space.kernel(), ds));
    // A network has no shape or DCC dimension sets of its own (its kernel is a placeholder).
    if (problem->network()) sets.clear();
    nlohmann::json out = {
        {"backend", problem->backend().name},
        {"shape", problem->network() ? nlohmann::json(nullptr)
                                     : nlohmann::json(shapeString(problem->kernel(), problem->shape()))},
        {"groups", space.resources().groups},
        {"cores_per_group", space.resources().coresPerGroup},
        {"simd_lanes", space.resources().simdLanes},
        {"dimension_sets", sets},
        {"generated", counts.generated},
        {"pruned", pruned},
        {"rules", rules},
        {"remaining", counts.remaining},
        {"seconds", seconds}};
    out.update(subjectJson(*problem));
    o.problem.whatIf.annotate(out, problem->backend());
    if (o.limit > 0) {
      nlohmann::json drafts = nlohmann::json::array();
      for (const auto& d : first) drafts.push_back(draftJson(*problem, d));
      out["drafts"] = drafts;
    }
    printJson(out);
    return;
  }
  std::cout << o.problem.whatIf.line(problem->backend());
  if (!targetOf(problem->backend()).searchSettings().pruneRules) {
    // A family with a candidate list of its own (compiles, mappings): DCC's sets and rules say nothing of it.
    std::cout << problem->title() << ": " << grouped(counts.generated) << " candidates ("
              << candidates->labelTitle() << "), listed in " << seconds * 1e3 << " ms\n";
  } else {
    std::cout << problem->title() << ": " << space.resources().groups << " groups x "
              << space.resources().coresPerGroup << " cores, SIMD " << space.resources().simdLanes << "\n";
    for (std::size_t i = 0; i < space.sets().sets.size(); ++i) {
      std::cout << "  dimension set " << i << ": " << dimensionSetLabel(space.kernel(), space.sets().sets[i])
                << (static_cast<int>(i) == space.sets().simdSet ? "  (SIMD)" : "") << "\n";
    }
    TextTable t({"stage", "drafts", "note"});
    t.add({"generated", grouped(counts.generated), ""});
    for (const auto& r : counts.rules) {
      t.add({"rule " + std::to_string(r.number) + " " + r.name, r.inForce ? "-" + grouped(r.removed) : "0",
             r.inForce ? "" : (o.noPrune ? "disabled" : "not in force")});
    }
    t.add({"remaining", grouped(counts.remaining), ""});
    std::cout << t.str() << "generated and pruned in " << seconds * 1e3 << " ms\n";
  }
  if (!first.empty()) {
    TextTable d({"draft", candidates->labelTitle()});
    for (const auto& f : first) d.add({std::to_string(f.id), candidates->label(f)});
    std::cout << "\n" << d.str();
  }
}

void runWhy(const DraftOptions& o) {
  const auto problem = o.problem.build();
  const auto candidates = targetOf(problem->backend()).candidates(*problem);
  const Verdict v = candidates->why(o.draft);
  const Draft d = candidates->candidate(o.draft);
  if (o.json) {
    nlohmann::json out = draftJson(*problem, d);
    out["kept"] = v.kept;
    out["rule"] = v.rule;
    out["rule_name"] = v.ruleName;
    out["part"] = v.part;
    out["twin"] = v.twin ? nlohmann::json(*v.twin) : nlohmann::json(nullptr);
    out["kept_twin"] = v.keptTwin ? nlohmann::json(*v.keptTwin) : nlohmann::json(nullptr);
    out["reason"] = v.reason;
    o.problem.whatIf.annotate(out, problem->backend());
    printJson(out);
    return;
  }
  std::cout << o.problem.whatIf.line(problem->backend());
  std::cout << "draft " << d.id << " " << candidates->label(d) << "\n";
  if (v.kept) {
    std::cout << "kept: it survives every rule in force\n";
    return;
  }
  std::cout << "pruned by rule " << v.rule << " (" << v.ruleName << "): " << v.reason << "\n";
  auto labelOf = [&](std::uint64_t id) { return candidates->label(candidates->candidate(id)); };
  if (v.twin) std::cout << "twin: draft " << *v.twin << " " << labelOf(*v.twin) << "\n";
  if (v.keptTwin)
    std::cout << "kept in its place: draft " << *v.keptTwin << " " << labelOf(*v.keptTwin) << "\n";
}

void runIr(const DraftOptions& o) {
  const auto problem = o.problem.build();
  if (o.indexing != "exact" && o.indexing != "expand") {
    throw InputError("--indexing: '" + o.indexing + "' is not one of exact, expand");
  }
  const auto indexing = o.indexing == "exact" ? IndexingStrategy::Exact : IndexingStrategy::Expand;
  EvalOptions eo;
  eo.indexing = indexing;
  // The family's candidate (a crossbar compile is not one of DCC's drafts of the problem's kernel).
  std::string ir = draftIr(*problem, candidateOf(*problem, o.draft), eo);
  if (!ir.empty() && ir.back() != '\n') ir += '\n';
  if (o.json) {
    // "strategy" is the key files and scripts already read; it names the indexing strategy.
    nlohmann::json out = {{"draft", o.draft}, {"strategy", o.indexing}, {"ir", ir}};
    o.problem.whatIf.annotate(out, problem->backend());
    printJson(out);
  } else {
    const std::string whatIf = o.problem.whatIf.line(problem->backend());
    std::cout << (whatIf.empty() ? "" : "// " + whatIf) << ir;  // a comment: the IR stays readable as IR
  }
}

}  // namespace

void registerDraftCommands(CLI::App& app) {
  auto drafts = std::make_shared<DraftsOptions>();
  auto* cmd = app.add_subcommand("drafts", "generate and prune the tiling drafts of a kernel on a backend");
  drafts->problem.addTo(cmd);
  cmd->add_flag("--no-prune", drafts->noPrune, "keep every generated draft");
  cmd->add_option("--limit,-n", drafts->limit, "list the first N drafts")->check(unsignedInteger());
  cmd->add_flag("--json", drafts->json, "machine-readable output");
  cmd->callback([drafts] { runDrafts(*drafts); });

  auto why = std::make_shared<DraftOptions>();
  cmd = app.add_subcommand("why", "explain why a draft was pruned or kept");
  why->problem.addTo(cmd);
  cmd->add_option("--draft", why->draft, "draft id")->required()->check(unsignedInteger());
  cmd->add_flag("--json", why->json, "machine-readable output");
  cmd->callback([why] { runWhy(*why); });

  auto ir = std::make_shared<DraftOptions>();
  cmd = app.add_subcommand("ir", "print the data-centric IR of a draft");
  ir->problem.addTo(cmd);
  cmd->add_option("--draft", ir->draft, "draft id")->required()->check(unsignedInteger());
  // --indexing as in simulate; --strategy (search strategies elsewhere) is kept for existing scripts.
  cmd->add_option("--indexing,--strategy", ir->indexing,
                  "indexing strategy: exact (DCC ii) or expand (DCC i)");
  cmd->add_flag("--json", ir->json, "machine-readable output");
  cmd->callback([ir] { runIr(*ir); });
}

}  // namespace pim::cli
