#pragma once
// One statement's result (text format), owning its PGresult.
#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string_view>

namespace storeapi::db {

class Result {
 public:
  Result() = default;
  explicit Result(PGresult* r) noexcept : r_(r) {}

  explicit operator bool() const noexcept { return r_ != nullptr; }
  ExecStatusType status() const noexcept { return r_ ? PQresultStatus(r_.get()) : PGRES_FATAL_ERROR; }
  // Rows were returned or the command succeeded.
  bool ok() const noexcept {
    ExecStatusType s = status();
    return s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK || s == PGRES_SINGLE_TUPLE;
  }
  int rows() const noexcept { return r_ ? PQntuples(r_.get()) : 0; }
  int columns() const noexcept { return r_ ? PQnfields(r_.get()) : 0; }

  bool is_null(int row, int col) const noexcept { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string_view text(int row, int col) const noexcept {
    return {PQgetvalue(r_.get(), row, col), static_cast<std::size_t>(PQgetlength(r_.get(), row, col))};
  }
  std::int64_t int64(int row, int col) const noexcept;
  bool boolean(int row, int col) const noexcept { return text(row, col) == "t"; }
  // Row `n` as the statement's declared row type (db/row.hpp): its columns by name.
  template <class Row>
  Row row(int n) const noexcept;

  // Five-character SQLSTATE of a failed statement ("" when none), and its message.
  std::string_view sqlstate() const noexcept;
  std::string_view error_message() const noexcept;

 private:
  struct Clear {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
  };
  std::unique_ptr<PGresult, Clear> r_;
};

}  // namespace storeapi::db
