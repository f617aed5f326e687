// SPDX-License-Identifier: Apache-2.0
// The SQLite connection and statement of session files (engine/workflow/session_file.cpp): every failure
// becomes an InputError naming the file, so the format code reads as what it stores. Internal to the
// session-file reader and writer.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/common/error.h"

namespace pim::session_db {

/// One connection; every failure becomes an InputError "<path>: <what>: <sqlite message>".
class Db {
 public:
  Db(std::string path, std::string shownPath, int flags) : m_shown(std::move(shownPath)) {
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
      // SQLite returns a handle even when the open fails, and a constructor that throws runs no destructor:
      // close it here (LeakSanitizer found it leaking on every failed save into a missing folder).
      try {
        fail("open", rc);
      } catch (...) {
        close();
        throw;
      }
    }
    sqlite3_extended_result_codes(m_db, 1);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() { close(); }
  void close() {
    if (m_db) sqlite3_close_v2(m_db);
    m_db = nullptr;
  }
  sqlite3* get() const { return m_db; }

  [[noreturn]] void fail(std::string_view op, int rc) const {
    std::string msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    switch (rc & 0xFF) {
      case SQLITE_NOTADB:
        throw InputError(m_shown + ": not a PIMScope session (file is not a database)");
      case SQLITE_CORRUPT:
        throw InputError(m_shown + ": session file is corrupt (" + msg + ")");
      case SQLITE_FULL:
        msg = "disk full (" + msg + ")";
        break;
      default:
        break;
    }
    throw InputError(m_shown + ": " + std::string(op) + ": " + msg);
  }
  void exec(const std::string& sql, std::string_view op) {
    char* err = nullptr;
    const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err);
    sqlite3_free(err);  // sqlite3_errmsg still holds the message for fail()
    if (rc != SQLITE_OK) fail(op, sqlite3_extended_errcode(m_db));
  }
  const std::string& shown() const { return m_shown; }

 private:
  sqlite3* m_db = nullptr;
  std::string m_shown;
};

/// A prepared statement: positional binds, row stepping, typed column reads.
class Stmt {
 public:
  Stmt(Db& db, const std::string& sql, std::string_view op) : m_db(db), m_op(op) {
    const int rc = sqlite3_prepare_v2(db.get(), sql.c_str(), static_cast<int>(sql.size()), &m_s, nullptr);
    if (rc != SQLITE_OK) db.fail(op, rc);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(m_s); }

  Stmt& i64(std::int64_t v) { return check(sqlite3_bind_int64(m_s, ++m_col, v)); }
  Stmt& u64(std::uint64_t v) { return i64(static_cast<std::int64_t>(v)); }  // ids round-trip bit-exactly
  Stmt& f64(double v) { return check(sqlite3_bind_double(m_s, ++m_col, v)); }
  Stmt& text(std::string_view v) {
    return check(
        sqlite3_bind_text64(m_s, ++m_col, v.data() ? v.data() : "", v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  Stmt& blob(std::string_view v) {
    static const char kEmpty = 0;  // a null pointer would bind NULL instead of an empty blob
    return check(
        sqlite3_bind_blob64(m_s, ++m_col, v.empty() ? &kEmpty : v.data(), v.size(), SQLITE_TRANSIENT));
  }
  Stmt& null() { return check(sqlite3_bind_null(m_s, ++m_col)); }
  template <class T>
  Stmt& opt(const std::optional<T>& v) {
    if (!v) return null();
    if constexpr (std::is_floating_point_v<T>)
      return f64(*v);
    else
      return i64(static_cast<std::int64_t>(*v));
  }

  bool step() {
    const int rc = sqlite3_step(m_s);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    m_db.fail(m_op, sqlite3_extended_errcode(m_db.get()));
  }
  /// Runs an INSERT and rewinds for the next row.
  void insert() {
    while (step()) {
    }
    sqlite3_reset(m_s);
    sqlite3_clear_bindings(m_s);
    m_col = 0;
  }

  bool isNull(int c) const { return sqlite3_column_type(m_s, c) == SQLITE_NULL; }
  std::int64_t colI64(int c) const { return sqlite3_column_int64(m_s, c); }
  /// A count or an id: a negative value is refused naming its column, not wrapped to 18446744073709551615.
  std::uint64_t colU64(int c) const {
    const std::int64_t v = colI64(c);
    if (v < 0)
      throw InputError("column " + std::string(sqlite3_column_name(m_s, c)) + " is " + std::to_string(v) +
                       ", below 0");
    return static_cast<std::uint64_t>(v);
  }
  double colF64(int c) const { return sqlite3_column_double(m_s, c); }
  std::string colText(int c) const {
    const void* p = sqlite3_column_blob(m_s, c);  // works for TEXT too, without UTF-8 conversion
    return p ? std::string(static_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(m_s, c)))
             : std::string();
  }

 private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK) m_db.fail(m_op, rc);
    return *this;
  }
  Db& m_db;
  std::string_view m_op;
  sqlite3_stmt* m_s = nullptr;
  int m_col = 0;
};

}  // namespace pim::session_db
