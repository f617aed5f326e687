// SPDX-License-Identifier: Apache-2.0
// The results store's private connection state and statement helper, shared by the files that implement
// ResultsStore's methods (store.cpp: open, migrations, drafts, results, models, lookup; store_mappings.cpp:
// conv mappings; store_sweep.cpp: sweep units; store_merge.cpp: merging shards). Not part of the store's
// interface: include only from engine/store/*.cpp.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/common/error.h"
#include "engine/store/store.h"

namespace pim::store_detail {

/// "disk full (...)", "database is corrupt: ...", "file is not a database" or SQLite's own message.
std::string describe(int rc, const char* msg);
std::int64_t nowSeconds();

/// When a mapping row replaces the stored one for its key (putMapping, mergeFrom): a lower objective, or the
/// same with a smaller gap (a known gap beats an unknown one). The tail of an upsert's DO UPDATE ... WHERE.
inline constexpr std::string_view kBetterMapping =
    "excluded.objective_value < mappings.objective_value OR "
    "(excluded.objective_value = mappings.objective_value AND excluded.gap IS NOT NULL AND "
    "(mappings.gap IS NULL OR excluded.gap < mappings.gap))";

/// Owns a connection; closes it (finalising nothing: statements are owned elsewhere) on destruction.
struct DbHandle {
  sqlite3* db = nullptr;
  DbHandle() = default;
  DbHandle(const DbHandle&) = delete;
  DbHandle& operator=(const DbHandle&) = delete;
  ~DbHandle() {
    if (db) sqlite3_close_v2(db);
  }
};

}  // namespace pim::store_detail

namespace pim {

struct ResultsStore::Impl {
  std::string path;
  store_detail::DbHandle handle;
  std::map<std::string, sqlite3_stmt*, std::less<>> stmts;  // cached prepared statements, keyed by SQL
  int txDepth = 0;
  bool opening = false;  // while validating on open, "not a database" and "corrupt" name no operation

  ~Impl() {
    for (auto& [sql, s] : stmts) sqlite3_finalize(s);
  }

  sqlite3* db() const { return handle.db; }

  [[noreturn]] void fail(std::string_view op, int rc) const {
    throw error(op, rc, db() ? sqlite3_errmsg(db()) : nullptr);
  }
  InputError error(std::string_view op, int rc, const char* msg) const {
    int primary = rc & 0xFF;
    if (opening && (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT))
      return InputError(path + ": " + store_detail::describe(rc, msg));
    return InputError(path + ": " + std::string(op) + ": " + store_detail::describe(rc, msg));
  }
  [[noreturn]] void failMsg(std::string_view op, std::string_view problem) const {
    throw InputError(path + ": " + std::string(op) + ": " + std::string(problem));
  }

  /// Runs statements without results (pragmas, BEGIN/COMMIT, migration scripts).
  void exec(std::string_view sql, std::string_view op) {
    char* err = nullptr;
    int rc = sqlite3_exec(db(), std::string(sql).c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string m = err ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      throw error(op, sqlite3_extended_errcode(db()), m.c_str());
    }
  }

  sqlite3_stmt* prepare(std::string_view sql, std::string_view op) {
    auto it = stmts.find(sql);
    if (it != stmts.end()) return it->second;
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v3(db(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s,
                                nullptr);
    if (rc != SQLITE_OK) fail(op, rc);
    stmts.emplace(std::string(sql), s);
    return s;
  }

  void begin() {
    if (txDepth == 0)
      exec("BEGIN IMMEDIATE", "begin transaction");
    else
      exec("SAVEPOINT pim_sp", "begin savepoint");
    ++txDepth;
  }
  void commit(bool outermost) {
    // A failed statement (full disk, I/O error) may have rolled back everything already.
    if (sqlite3_get_autocommit(db())) failMsg("commit", "transaction was rolled back by an earlier error");
    exec(outermost ? "COMMIT" : "RELEASE pim_sp", "commit");
  }
  void rollback(bool outermost) noexcept {
    if (sqlite3_get_autocommit(db())) return;
    const char* sql = outermost ? "ROLLBACK" : "ROLLBACK TO pim_sp; RELEASE pim_sp";
    sqlite3_exec(db(), sql, nullptr, nullptr, nullptr);
  }
};

}  // namespace pim

namespace pim::store_detail {

using Impl = ResultsStore::Impl;  // NOLINT: alias of the private connection state

/// One use of a cached statement: binds, steps, reads columns; resets and clears bindings at scope exit.
class Stmt {
 public:
  Stmt(Impl& impl, std::string_view sql, std::string_view op) : m_impl(impl), m_op(op) {
    m_s = impl.prepare(sql, op);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() {
    sqlite3_reset(m_s);
    sqlite3_clear_bindings(m_s);
  }

  Stmt& bind(std::int64_t v) { return check(sqlite3_bind_int64(m_s, ++m_col, v)); }
  Stmt& bind(double v) { return check(sqlite3_bind_double(m_s, ++m_col, v)); }
  Stmt& bind(std::string_view v) {
    return check(
        sqlite3_bind_text64(m_s, ++m_col, v.data() ? v.data() : "", v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  Stmt& bindBlob(const void* p, std::size_t n) {
    static const char kEmpty = 0;  // a null pointer would bind NULL instead of an empty blob
    return check(sqlite3_bind_blob64(m_s, ++m_col, n ? p : &kEmpty, n, SQLITE_TRANSIENT));
  }
  Stmt& bind(std::optional<std::int64_t> v) { return v ? bind(*v) : check(sqlite3_bind_null(m_s, ++m_col)); }
  Stmt& bind(std::optional<double> v) { return v ? bind(*v) : check(sqlite3_bind_null(m_s, ++m_col)); }

  /// True when a row is available, false when done.
  bool step() {
    int rc = sqlite3_step(m_s);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    m_impl.fail(m_op, sqlite3_extended_errcode(m_impl.db()));
  }
  void run() {
    while (step()) {
    }
  }

  std::int64_t i64(int c) const { return sqlite3_column_int64(m_s, c); }
  double f64(int c) const { return sqlite3_column_double(m_s, c); }
  bool isNull(int c) const { return sqlite3_column_type(m_s, c) == SQLITE_NULL; }
  std::string text(int c) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_s, c));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_s, c))) : std::string();
  }
  std::pair<const unsigned char*, std::size_t> blob(int c) const {
    auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(m_s, c));
    return {p, p ? static_cast<std::size_t>(sqlite3_column_bytes(m_s, c)) : 0};
  }

 private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK) m_impl.fail(m_op, rc);
    return *this;
  }
  Impl& m_impl;
  std::string_view m_op;
  sqlite3_stmt* m_s;
  int m_col = 0;
};

}  // namespace pim::store_detail
