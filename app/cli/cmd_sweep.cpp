// SPDX-License-Identifier: Apache-2.0
// `sweep` and `merge`: label a suite's drafts in work units, across MPI ranks when started by mpirun or srun
// (one process otherwise), each rank into its own shard store; rank 0 hands units out, shows progress and
// merges the shards into one store. A rerun of the same command resumes (docs/sweep.md).
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "app/cli/cli_common.h"
#include "app/cli/sweep_mpi.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/predict/predictor.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/suite.h"
#include "engine/workflow/sweep.h"

namespace pim::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct SweepCmd {
  std::string backend, db, shards, labels = "sample";
  std::vector<std::string> suites;
  std::size_t maxSamples = 400, screenLimit = 0, unitDrafts = SweepOptions{}.unitDrafts;
  std::uint64_t seed = 42;
  unsigned threads = 0;
  bool json = false;
};

// Rank 0's queue: the units not yet complete, handed to whichever worker asks (local or remote, hence the
// lock), with the progress line and the totals of the units finished in this run.
class CoordinatedQueue : public ISweepQueue {
 public:
  CoordinatedQueue(const SweepPlan& plan, const std::set<std::size_t>& done, int ranks,
                   const std::atomic<bool>& cancel)
      : m_inner(plan, done), m_plan(plan), m_ranks(ranks), m_cancel(cancel) {
    m_unitsDone = done.size();
    for (std::size_t u : done) m_draftsDone += plan.units[u].end - plan.units[u].begin;
  }

  std::optional<SweepAssignment> next(const SweepUnitResult* finished) override {
    std::lock_guard lock(m_mutex);
    if (finished && !finished->cancelled) account(*finished);
    if (m_cancel.load()) return std::nullopt;
    return m_inner.next(finished);
  }
  std::int64_t share(std::size_t unit, std::int64_t bestCycles) override {
    std::lock_guard lock(m_mutex);
    const std::int64_t known = m_inner.share(unit, bestCycles);
    ++shares;
    if (known < bestCycles) ++sharesLowering;
    return known;
  }

  std::size_t unitsRun = 0, labelled = 0, simulated = 0, reused = 0;
  std::size_t shares = 0, sharesLowering = 0;  // exchanges while units ran; those that lowered the incumbent
  double busySeconds = 0;

 private:
  void account(const SweepUnitResult& r) {
    ++unitsRun;
    ++m_unitsDone;
    labelled += r.labelled;
    simulated += r.simulated;
    reused += r.reused;
    busySeconds += r.seconds;
    const SweepUnit& u = m_plan.units[r.unit];
    m_draftsDone += u.end - u.begin;
    progressLine("sweep: " + std::to_string(m_unitsDone) + "/" + std::to_string(m_plan.units.size()) +
                 " units, " + grouped(m_draftsDone) + "/" + grouped(m_plan.drafts()) + " drafts on " +
                 std::to_string(m_ranks) + (m_ranks == 1 ? " rank" : " ranks") +
                 m_eta("sweep", static_cast<double>(m_draftsDone), static_cast<double>(m_plan.drafts())));
  }

  LocalSweepQueue m_inner;
  const SweepPlan& m_plan;
  int m_ranks;
  const std::atomic<bool>& m_cancel;
  std::mutex m_mutex;
  std::size_t m_unitsDone = 0, m_draftsDone = 0;
  EtaMeter m_eta;
};

fs::path shardDir(const SweepCmd& o) {
  return o.shards.empty() ? fs::path(o.db + ".shards") : fs::path(o.shards);
}

std::vector<fs::path> shardFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("shard-", 0) == 0 && e.path().extension() == ".db") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Units complete in the merged store or in any shard left by an earlier run of the same plan.
std::set<std::size_t> unitsAlreadyDone(const SweepCmd& o, const SweepPlan& plan) {
  ResultsStore db = ResultsStore::open(o.db);
  std::set<std::size_t> done = completedUnits(db, plan);
  for (const fs::path& f : shardFiles(shardDir(o))) {
    ResultsStore shard = ResultsStore::open(f.string());
    const auto more = completedUnits(shard, plan);
    done.insert(more.begin(), more.end());
  }
  return done;
}

void runWorker(const SweepCmd& o, const Backend& b, const Suite& suite, const SweepPlan& plan,
               ISweepQueue& queue, const SweepOptions& so, int rank) {
  const fs::path dir = shardDir(o);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the shard folder (" + ec.message() + ")");
  ResultsStore shard = ResultsStore::open((dir / ("shard-" + std::to_string(rank) + ".db")).string());
  runSweepWorker(b, suite, plan, queue, shard, so, rank);
}

struct MergeTotals {
  MergeReport sum;
  std::size_t shards = 0;
};

MergeTotals mergeShards(const std::string& db, const std::vector<fs::path>& shards) {
  MergeTotals t;
  ResultsStore out = ResultsStore::open(db);
  for (const fs::path& f : shards) {
    t.sum += out.mergeFrom(f.string());
    ++t.shards;
  }
  return t;
}

void removeShards(const fs::path& dir, const std::vector<fs::path>& shards) {
  std::error_code ec;
  for (const fs::path& f : shards) {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(f.string() + suffix, ec);
  }
  fs::remove(dir, ec);  // only when empty
}

nlohmann::json mergeJson(const MergeTotals& t) {
  return {{"shards", t.shards},
          {"results", t.sum.results},
          {"problems", t.sum.problems},
          {"sweep_units", t.sum.sweepUnits},
          {"disagreements", t.sum.disagreements}};
}

// What one sweep run did, for its summary.
struct SweepSummary {
  std::string backend;
  const SweepPlan& plan;
  const SweepOptions& options;
  int ranks;
  std::size_t resumed, complete;
  double planSeconds, seconds;
  const CoordinatedQueue& queue;
  const MergeTotals& merged;
  const std::vector<SweepOptimum>& optima;  // Optimum, once every unit is complete
};

nlohmann::json optimaJson(const std::vector<SweepOptimum>& optima) {
  nlohmann::json out = nlohmann::json::array();
  for (const SweepOptimum& m : optima) {
    nlohmann::json j = {{"kernel", m.kernel}, {"shape", m.shape}, {"drafts", m.drafts}};
    if (m.draft) j.update({{"draft", *m.draft}, {"cycles", m.cycles}, {"time_ns", m.timeNs}});
    out.push_back(std::move(j));
  }
  return out;
}

void printSweep(const SweepCmd& o, const SweepSummary& r) {
  const double rate = r.seconds > 0 ? static_cast<double>(r.queue.simulated) / r.seconds : 0.0;
  if (o.json) {
    printJson({{"backend", r.backend},
               {"plan", r.plan.key},
               {"labels", sweepLabelsName(r.options.labels)},
               {"units", r.plan.units.size()},
               {"drafts", r.plan.drafts()},
               {"shapes", r.plan.shapes.size()},
               {"ranks", r.ranks},
               {"threads_per_rank", r.options.train.threads},
               {"units_resumed", r.resumed},
               {"units_run", r.queue.unitsRun},
               {"units_complete", r.complete},
               {"labelled", r.queue.labelled},
               {"simulated", r.queue.simulated},
               {"reused", r.queue.reused},
               {"plan_seconds", r.planSeconds},
               {"seconds", r.seconds},
               {"busy_seconds", r.queue.busySeconds},
               {"simulations_per_second", rate},
               {"bytes_per_unit", SweepWorld::kBytesPerUnit},
               {"shares", r.queue.shares},
               {"shares_lowering", r.queue.sharesLowering},
               {"interrupted", interrupted().load()},
               {"merge", mergeJson(r.merged)},
               {"optima", optimaJson(r.optima)},
               {"db", o.db}});
    return;
  }
  std::cout << "sweep " << r.plan.key.substr(0, 12) << ": " << r.plan.units.size() << " units, "
            << grouped(r.plan.drafts()) << " drafts of " << r.plan.shapes.size() << " shapes on " << r.backend
            << " (" << sweepLabelsName(r.options.labels) << "), " << r.ranks
            << (r.ranks == 1 ? " rank" : " ranks") << " x " << r.options.train.threads << " threads\n"
            << "  " << r.resumed << " units complete before this run; ran " << r.queue.unitsRun << " in "
            << withDecimals(r.seconds, 1) << " s: " << grouped(r.queue.simulated) << " simulations ("
            << withDecimals(rate, 0) << "/s), " << grouped(r.queue.reused) << " labels reused\n";
  if (r.options.labels == SweepLabels::Optimum)
    std::cout << "  " << grouped(r.queue.shares) << " incumbent exchanges while units ran, "
              << grouped(r.queue.sharesLowering) << " of them lowering the unit's incumbent\n";
  std::cout << "  merged " << r.merged.shards << " shards into " << o.db << ": "
            << grouped(r.merged.sum.results) << " new labels";
  if (r.merged.sum.disagreements)
    std::cout << ", " << r.merged.sum.disagreements << " labels that differ between shards (first kept)";
  std::cout << "\n";
  for (const SweepOptimum& m : r.optima) {
    std::cout << "  optimum of " << m.kernel << "[" << m.shape << "] over " << grouped(m.drafts)
              << " drafts: ";
    if (m.draft)
      std::cout << "draft " << *m.draft << ", " << grouped(m.cycles) << " cycles, "
                << withDecimals(m.timeNs, 1) << " ns\n";
    else
      std::cout << "none runs\n";
  }
  if (r.complete != r.plan.units.size())
    std::cout << "  incomplete: " << r.plan.units.size() - r.complete
              << " units left; rerun the same command to resume (shards kept in " << shardDir(o).string()
              << ")\n";
}

void runSweep(const SweepCmd& o) {
  installInterruptHandler();
  SweepWorld world;
  const Backend& b = builtinBackend(o.backend);
  const Suite suite = loadSuites(o.suites);
  SweepOptions so;
  so.labels = parseSweepLabels(o.labels);
  so.unitDrafts = o.unitDrafts;
  so.train.maxSamplesPerShape = o.maxSamples;
  so.train.screenLimit = o.screenLimit;
  so.train.seed = o.seed;
  so.train.cancel = &interrupted();
  if (so.labels == SweepLabels::Optimum) so.seedModel = sharedShippedModel(b).model;
  // The machine's hardware threads are shared by the ranks it runs.
  so.train.threads = o.threads ? cappedThreads(o.threads)
                               : std::max(1u, std::max(1u, std::thread::hardware_concurrency()) /
                                                  static_cast<unsigned>(world.localSize()));
  const auto t0 = Clock::now();
  const SweepPlan plan = planSweep(b, suite, so);
  const double planSeconds = std::chrono::duration<double>(Clock::now() - t0).count();

  // Each shard is open on one machine at a time (SQLite's WAL needs that on a shared filesystem): rank 0
  // reads them for completed units before the barrier, each rank writes its own between the barriers, and
  // rank 0 merges them after the second.
  if (world.rank() != 0) {
    world.barrier();
    const auto queue = world.remoteQueue();
    runWorker(o, b, suite, plan, *queue, so, world.rank());
    world.barrier();
    return;
  }
  const std::set<std::size_t> done = unitsAlreadyDone(o, plan);
  world.barrier();
  CoordinatedQueue queue(plan, done, world.size(), interrupted());
  std::exception_ptr localError;
  const auto t1 = Clock::now();
  world.serve(queue, [&] {
    try {
      runWorker(o, b, suite, plan, queue, so, 0);
    } catch (...) {
      localError = std::current_exception();
    }
  });
  const double seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  world.barrier();
  if (stderrIsTerminal()) std::cerr << "\r\033[K";
  const std::vector<fs::path> shards = shardFiles(shardDir(o));
  const MergeTotals merged = mergeShards(o.db, shards);
  ResultsStore db = ResultsStore::open(o.db);
  const std::size_t complete = completedUnits(db, plan).size();
  const bool finished = complete == plan.units.size() && !localError;
  if (finished) removeShards(shardDir(o), shards);
  if (localError) std::rethrow_exception(localError);
  const std::vector<SweepOptimum> optima = finished && so.labels == SweepLabels::Optimum
                                               ? sweepOptima(b, suite, plan, db, so)
                                               : std::vector<SweepOptimum>{};
  printSweep(o, {b.name, plan, so, world.size(), done.size(), complete, planSeconds, seconds, queue, merged,
                 optima});
}

struct MergeCmd {
  std::string db;
  std::vector<std::string> shards;
  bool json = false;
};

void runMerge(const MergeCmd& o) {
  std::vector<fs::path> shards(o.shards.begin(), o.shards.end());
  const MergeTotals t = mergeShards(o.db, shards);
  if (o.json) {
    printJson(mergeJson(t));
    return;
  }
  std::cout << "merged " << t.shards << " stores into " << o.db << ": " << grouped(t.sum.results)
            << " new labels, " << t.sum.problems << " new problems, " << t.sum.sweepUnits
            << " completed sweep units";
  if (t.sum.disagreements) std::cout << ", " << t.sum.disagreements << " labels that differ (first kept)";
  if (t.sum.modelsSkipped)
    std::cout << "; " << t.sum.modelsSkipped << " models not merged (ids are per store)";
  std::cout << "\n";
}

}  // namespace

void registerSweepCommands(CLI::App& app) {
  auto s = std::make_shared<SweepCmd>();
  auto* cmd = app.add_subcommand(
      "sweep", "label a suite's drafts in work units, across MPI ranks under mpirun or srun; resumable");
  cmd->add_option("--backend,-b", s->backend, "backend name")->required();
  cmd->add_option("--suite", s->suites, "workload suite JSON (repeat for the union)")->required();
  cmd->add_option("--db", s->db, "the store the shards merge into (and completed units are read from)")
      ->required();
  cmd->add_option("--shards", s->shards, "folder every rank can write its shard to (default: <db>.shards)");
  cmd->add_option(
      "--labels", s->labels,
      "sample (train's sample: train --db then reuses it), all, or optimum (every draft by branch and "
      "bound, from the shipped model's confirmations: each shape's optimum, proven)");
  cmd->add_option("--max-samples", s->maxSamples, "as train: cap on sampled drafts per shape")
      ->check(nonNegative());
  cmd->add_option("--screen-limit", s->screenLimit, "as train: sample from the analytic screen's N best")
      ->check(nonNegative());
  cmd->add_option("--seed", s->seed, "as train: the sampling seed")->check(unsignedInteger());
  cmd->add_option("--unit-drafts", s->unitDrafts, "drafts per work unit at most")->check(nonNegative());
  cmd->add_option("--threads", s->threads,
                  "labelling threads per rank (0: the machine's hardware threads shared by its ranks)")
      ->check(nonNegative());
  cmd->add_flag("--json", s->json, "machine-readable output");
  cmd->callback([s] { runSweep(*s); });

  auto m = std::make_shared<MergeCmd>();
  cmd = app.add_subcommand("merge", "merge result stores (a sweep's shards) into one; idempotent");
  cmd->add_option("--db", m->db, "the store to merge into (created if missing)")->required();
  cmd->add_option("stores", m->shards, "stores to merge from")->required();
  cmd->add_flag("--json", m->json, "machine-readable output");
  cmd->callback([m] { runMerge(*m); });
}

}  // namespace pim::cli
