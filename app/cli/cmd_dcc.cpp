// SPDX-License-Identifier: Apache-2.0
// `dcc-drafts`: every draft DCC's public artifact generates for a problem, labelled in the DCC-artifact mode
// (dcc-artifact.md), with its vendor tiling and the best draft's speed-up over it: the artifact's own
// experiment, run inside PIMScope.
#include <algorithm>
#include <atomic>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <thread>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/common/threads.h"
#include "engine/search/baselines.h"
#include "engine/target/dram_pim/dcc_artifact/artifact_model.h"

namespace pim::cli {
namespace {

struct DccOptions {
  ProblemOptions problem;
  std::string model = "dcc-kernel";
  std::size_t top = 10;
  unsigned threads = 0;
  bool json = false;
};

struct Labelled {
  dcc::Tiling tiling;
  Evaluation eval;
};

/// Labels every row, drafts shared out over `threads` workers (each label is independent of the others).
void labelAll(const Problem& p, const EvalOptions& eo, std::vector<Labelled>& rows, unsigned threads) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  std::mutex m;
  auto work = [&] {
    for (std::size_t i; (i = next++) < rows.size();) {
      try {
        rows[i].eval = dcc::evaluateTiling(p, rows[i].tiling, eo);
      } catch (...) {
        std::lock_guard lock(m);
        if (!failed) failed = std::current_exception();
        next = rows.size();
      }
    }
  };
  std::vector<std::thread> pool;
  startThreads(pool, workerThreads(threads) - 1, [&](std::size_t) { work(); });  // the caller is one more
  work();
  for (auto& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

void run(const DccOptions& o) {
  const auto problem = o.problem.build();
  EvalOptions eo;
  eo.model = modelOption(o.model);
  if (eo.model == LabelModel::PimScope) throw InputError("--model: dcc-drafts labels with a dcc-* model");
  eo.keepUnitStats = false;
  const Baseline vendor = vendorBaseline(*problem, eo);
  std::vector<Labelled> rows;
  for (dcc::Tiling& t : dcc::artifactDrafts(*problem)) rows.push_back({std::move(t), {}});
  labelAll(*problem, eo, rows, cappedThreads(o.threads));
  if (rows.empty()) throw InputError("dcc-drafts: the artifact's generator emits no draft for this shape");
  std::stable_sort(rows.begin(), rows.end(), [](const Labelled& a, const Labelled& b) {
    return a.eval.totalCycles < b.eval.totalCycles;
  });
  const double speedup =
      static_cast<double>(vendor.eval.totalCycles) / static_cast<double>(rows[0].eval.totalCycles);
  const std::size_t shown = std::min(o.top, rows.size());
  if (o.json) {
    nlohmann::json out{{"backend", problem->backend().name},
                       {"kernel", problem->kernel().name},
                       {"shape", shapeString(problem->kernel(), problem->shape())},
                       {"model", labelModelName(eo.model)},
                       {"drafts", rows.size()},
                       {"vendor", {{"summary", vendor.summary}, {"cycles", vendor.eval.totalCycles}}},
                       {"best_speedup_over_vendor", speedup}};
    for (std::size_t i = 0; i < shown; ++i) {
      nlohmann::json parts = nlohmann::json::array();
      for (const dcc::Part& p : rows[i].tiling) parts.push_back({p.groups, p.cores, p.tile});
      out["best"].push_back({{"parts", parts},
                             {"cycles", rows[i].eval.totalCycles},
                             {"phases", rows[i].eval.cycles},
                             {"time_ns", rows[i].eval.timeNs}});
    }
    printJson(out);
    return;
  }
  std::cout << problem->title() << ", " << labelModelName(eo.model) << ": " << rows.size()
            << " drafts from DCC's generator\n"
            << vendor.summary << ": " << vendor.eval.totalCycles << " cycles\n"
            << "best " << dcc::tilingLabel(rows[0].tiling) << ": " << rows[0].eval.totalCycles << " cycles, "
            << std::fixed << std::setprecision(2) << speedup << "x over the vendor tiling\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const Evaluation& e = rows[i].eval;
    std::cout << std::setw(4) << i + 1 << "  " << std::setw(9) << e.totalCycles << " cycles (in "
              << e.cycles[0] << ", compute " << e.cycles[1] << ", out " << e.cycles[2] << ")  "
              << dcc::tilingLabel(rows[i].tiling) << "\n";
  }
}

}  // namespace

void registerDccCommands(CLI::App& app) {
  auto o = std::make_shared<DccOptions>();
  auto* cmd =
      app.add_subcommand("dcc-drafts", "label every draft of DCC's generator in the DCC-artifact mode");
  o->problem.addTo(cmd);
  addModelOption(cmd, o->model, "dcc-kernel");
  cmd->add_option("--top", o->top, "drafts to list, fastest first")->check(unsignedInteger());
  addThreadsOption(cmd, o->threads);
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->callback([o] { run(*o); });
}

}  // namespace pim::cli
