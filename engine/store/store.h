// SPDX-License-Identifier: Apache-2.0
// Results store: one SQLite file holding backends, problems, drafts, simulated results, model predictions,
// trained models and the best-draft lookup table, so exploration runs resume and the GUI reads past runs.
// Schema, migration policy and crash-safety guarantees: docs/store.md.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pim {

/// One draft of one problem: its parts (JSON) and the float32 feature vector the predictor consumes.
struct StoredDraft {
  std::int64_t draftId = 0;
  std::string partsJson;
  std::vector<float> features;
};

/// One simulated (or vendor / GPU / compute-centric reference) result of one draft of one problem.
/// `schedule` is one of "draft", "vendor", "gpu", "compute-centric"; `options` is the caller's canonical
/// simulator-options string ("" for defaults) and is part of the key.
struct StoredResult {
  std::int64_t problem = 0;  // problems.id
  std::int64_t draftId = 0;
  std::string schedule = "draft";
  std::string options;
  std::int64_t inputCycles = 0;
  std::int64_t computeCycles = 0;
  std::int64_t outputCycles = 0;
  std::int64_t totalCycles = 0;
  double timeNs = 0;
  double energyPj = 0;
  std::string energyJson;
  std::string banksJson;
  std::int64_t createdAt = 0;  // unix seconds; set by the store on write, filled on read
};

/// A trained predictor. `id` and `createdAt` are assigned by putModel (createdAt kept if non-zero).
struct StoredModel {
  std::int64_t id = 0;
  std::string backendHash;
  std::string name;
  std::int64_t createdAt = 0;  // unix seconds
  std::vector<std::uint8_t> bytes;
  std::string featureSchema;  // JSON
  std::string metadata;       // JSON
};

/// Best known draft for (backend, kernel computation, shape). `kernelHash` is what the kernel computes
/// (computationHash, "ir1:..."), `kernel` only its name for display. `source` says where it came from:
/// "simulated", "model", "manual", ... (stores migrated from schema 1 get "simulated" or "model" from
/// model_id). Rows from stores older than schema 3 have kernelHash "name:<kernel>" and match no kernel.
struct LookupEntry {
  std::string backendHash;
  std::string kernelHash;
  std::string kernel;
  std::string shape;
  std::int64_t draftId = 0;
  double timeNs = 0;
  std::optional<std::int64_t> modelId;
  std::string source;
};

/// A conv layer's mapping as one mapper found it (docs/convmap.md), keyed by (hierarchyHash, layerKey,
/// objective, mapper): the hash of the hierarchy's numbers, the layer's canonical shape, the objective with
/// its weight ("blended(alpha=0.5)") and the mapper. The costs are the evaluator's for `mappingJson`.
struct StoredMapping {
  std::string hierarchyHash, hierarchy;  // hash, and the name for display
  std::string layerKey, layer;           // canonical shape, and the layer's name for display
  std::string objective, mapper;
  std::string mappingJson;
  double objectiveValue = 0;
  std::int64_t latencyCycles = 0;
  double energyPj = 0;
  std::int64_t rowActivations = 0;
  std::string status;                // "optimal", "feasible"
  std::optional<double> bound, gap;  // none: gap unknown
  std::string boundSource;           // what proves the bound ("exhaustive walk", "analytic lower bound")
  double seconds = 0;
  std::int64_t createdAt = 0;  // unix seconds; set by the store on write
};

/// A completed work unit of a distributed labelling sweep: unit `unit` of the plan whose hash is `plan`,
/// finished by process `rank` after `seconds`, with `labelled` of its `drafts` drafts labelled.
struct SweepUnitRecord {
  std::string plan;
  std::int64_t unit = 0;
  std::int64_t drafts = 0, labelled = 0;
  double seconds = 0;
  std::int64_t rank = 0;
  std::int64_t createdAt = 0;  // unix seconds; set by the store on write when 0
};

/// What ResultsStore::mergeFrom did: rows added per table (for lookup and mappings: added or replaced),
/// results present in both stores with different cycles, time or energy (the existing row is kept), and the
/// shard's models, which are not merged (model ids are per store).
struct MergeReport {
  std::int64_t backends = 0, problems = 0, drafts = 0, results = 0, lookup = 0, mappings = 0, sweepUnits = 0;
  std::int64_t disagreements = 0, modelsSkipped = 0;
  /// Totals over several merges.
  MergeReport& operator+=(const MergeReport& o) {
    backends += o.backends, problems += o.problems, drafts += o.drafts, results += o.results;
    lookup += o.lookup, mappings += o.mappings, sweepUnits += o.sweepUnits;
    disagreements += o.disagreements, modelsSkipped += o.modelsSkipped;
    return *this;
  }
};

/// A PIMScope results store. Not thread-safe: use one ResultsStore per thread (several processes may share a
/// file; writers wait up to 5 s for each other). Every failure throws InputError naming the path and the
/// operation ("runs.db: putResults: disk full (database or disk is full)").
class ResultsStore {
 public:
  /// Opaque connection state (defined in store.cpp).
  struct Impl;

  /// PRAGMA application_id of every PIMScope store ("PIMS").
  static constexpr std::uint32_t kApplicationId = 0x50494D53;
  /// Schema version this build writes; older stores are migrated on open, newer ones refused.
  static int schemaVersion();

  /// Opens (creating if missing) the store at `path`; ":memory:" gives a private in-memory store. A file that
  /// is not SQLite, is corrupt, belongs to another application or comes from a newer PIMScope is refused with
  /// InputError and left untouched. An older store is migrated in one transaction.
  static ResultsStore open(const std::string& path);

  ResultsStore(ResultsStore&&) noexcept;
  ResultsStore& operator=(ResultsStore&&) noexcept;
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;
  ~ResultsStore();

  const std::string& path() const;

  /// Batches writes: `ResultsStore::Transaction tx(store); ...; tx.commit();`. Without commit() the
  /// destructor rolls back. Transactions nest (inner ones are savepoints); the store's own batch methods join
  /// an open transaction. A failed write inside a transaction may roll back the whole outer transaction
  /// (SQLite does so on a full disk); the destructors then do nothing more.
  class Transaction {
   public:
    explicit Transaction(ResultsStore& store);
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();
    void commit();

   private:
    friend class ResultsStore;
    explicit Transaction(Impl& impl);
    Impl* m_impl;
    bool m_outermost;
    bool m_done = false;
  };

  // --- Backends and problems
  // ----------------------------------------------------------------------------------
  /// Inserts or updates (by hash) a backend; returns its id.
  std::int64_t upsertBackend(std::string_view name, std::string_view hash, std::string_view json);
  /// Inserts the problem (backend, kernel computation, shape) or returns the existing one's id, recording
  /// `kernel` (its name) and `kernelSource` as the latest seen. `kernelHash` says what the kernel computes
  /// (computationHash): a kernel whose IR differs is another problem whatever its name, and one whose text
  /// differs only in comments, layout or name is the same. A problem row of a store older than schema 3
  /// (keyed by name) is adopted only if its stored source equals `kernelSource`.
  std::int64_t upsertProblem(std::int64_t backendId, std::string_view kernel, std::string_view kernelHash,
                             std::string_view kernelSource, std::string_view shape);
  std::optional<std::int64_t> findProblem(std::int64_t backendId, std::string_view kernelHash,
                                          std::string_view shape);

  // --- Drafts
  // -------------------------------------------------------------------------------------------------
  void putDrafts(std::int64_t problemId, std::span<const StoredDraft> drafts);
  /// All drafts of a problem, by draft id.
  std::vector<StoredDraft> drafts(std::int64_t problemId);

  // --- Results
  // ------------------------------------------------------------------------------------------------
  /// Inserts or replaces every result, in one transaction.
  void putResults(std::span<const StoredResult> results);
  std::optional<StoredResult> result(std::int64_t problemId, std::int64_t draftId, std::string_view schedule,
                                     std::string_view options);
  /// All results of a problem, by (draft id, schedule, options).
  std::vector<StoredResult> results(std::int64_t problemId);
  std::int64_t countResults(std::int64_t problemId);

  // --- Predictions
  // --------------------------------------------------------------------------------------------
  void putPredictions(std::int64_t problemId, std::int64_t modelId,
                      std::span<const std::pair<std::int64_t, double>> draftValues);
  /// (draft id, predicted value) of one model for one problem, by draft id.
  std::vector<std::pair<std::int64_t, double>> predictions(std::int64_t problemId, std::int64_t modelId);

  // --- Models
  // -------------------------------------------------------------------------------------------------
  /// Stores a new model (never replaces one); returns its id.
  std::int64_t putModel(const StoredModel& model);
  /// The newest model (by createdAt, then id) with this backend hash and name.
  std::optional<StoredModel> latestModel(std::string_view backendHash, std::string_view name);
  std::optional<StoredModel> model(std::int64_t id);

  // --- Lookup table
  // -------------------------------------------------------------------------------------------
  /// Inserts or replaces the entry for (backendHash, kernelHash, shape).
  void putLookup(const LookupEntry& entry);
  /// The entry as stored: callers verify it (the draft exists and is kept) before serving it.
  std::optional<LookupEntry> lookup(std::string_view backendHash, std::string_view kernelHash,
                                    std::string_view shape);

  // --- Conv mappings
  // ------------------------------------------------------------------------------------------
  /// Stores `m` unless the store holds a better one for its key: one with a lower objective, or an equal
  /// objective with a gap at least as small (a known gap beats an unknown one); with `replace`, whatever the
  /// stored row (one the caller found unusable). Returns whether `m` was written.
  bool putMapping(const StoredMapping& m, bool replace = false);
  std::optional<StoredMapping> mapping(std::string_view hierarchyHash, std::string_view layerKey,
                                       std::string_view objective, std::string_view mapper);
  /// Every stored mapping, by hierarchy, layer, objective and mapper.
  std::vector<StoredMapping> mappings();

  // --- Sweep units
  // -------------------------------------------------------------------------------------------
  /// Records that a sweep unit is complete; a unit already recorded keeps its first completion.
  void putSweepUnit(const SweepUnitRecord& r);
  /// The completed units of `plan`, by unit.
  std::vector<SweepUnitRecord> sweepUnits(std::string_view plan);

  // --- Merging shards
  // -----------------------------------------------------------------------------------------
  /// Copies into this store, by natural keys, what the store at `shardPath` holds and this one lacks, in one
  /// transaction; merging the same shard again changes nothing. The shard is validated (and migrated) by
  /// open() first, so a corrupt, foreign or newer file is refused with open()'s InputError; a missing shard,
  /// this store itself, or a call inside an open Transaction is refused too. Rules: docs/store.md.
  MergeReport mergeFrom(const std::string& shardPath);

  // --- Limits
  // -------------------------------------------------------------------------------------------------
  /// Caps the database file at `pages` pages for this connection (PRAGMA max_page_count; never below the
  /// current size); returns the cap in effect. Writes beyond it fail with "disk full". Used for quotas and
  /// tests.
  std::int64_t setMaxPageCount(std::int64_t pages);

 private:
  explicit ResultsStore(std::unique_ptr<Impl> impl);
  Impl& impl();
  std::unique_ptr<Impl> m_impl;
};

/// One schema migration step: SQL that takes a store from version toVersion-1 to toVersion. Step 1 creates
/// the schema from an empty file. Steps run in order inside the opening transaction (with foreign keys off
/// and a foreign_key_check before commit); the last step's version is ResultsStore::schemaVersion(). See
/// docs/store.md.
struct StoreMigration {
  int toVersion;
  std::string_view description;
  std::string_view sql;
};
std::span<const StoreMigration> storeMigrations();

}  // namespace pim
