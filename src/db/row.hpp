#pragma once
// Typed rows: a statement's result columns are declared once, by name and type, and
// readers name them (`result.row<KeyByHash>(0).plan()`), never count them. A row is a
// view of (result, row number); each accessor reads its column by an index fixed at
// compile time, so reading a column costs what `result.text(row, 12)` did: no
// allocation, no lookup by name.
//
// Declaring one (the X-macro lists the columns in the order the SQL selects them):
//
//   #define STOREAPI_KEY_BY_HASH_COLUMNS(X) X(id, uuid) X(plan, text) X(rate_per_minute, int8)
//   STOREAPI_DB_ROW(KeyByHash, STOREAPI_KEY_BY_HASH_COLUMNS);
//
// gives `KeyByHash::columns` (the declaration a db::Statement points to),
// `KeyByHash::Index::plan` (the column's number) and the accessors `id()`, `plan()`,
// `rate_per_minute()`. Accessors decode by the declared type: int8 and int4 as
// std::int64_t, boolean as bool, every other type as its text (std::string_view, valid
// while the result lives). A column that can be null is tested with `is_null(Index::x)`.
#include <cstdint>
#include <string_view>

#include "db/result.hpp"
#include "db/statement.hpp"

namespace storeapi::db {

class RowView {
 public:
  RowView(const Result& result, int row) noexcept : result_(&result), row_(row) {}

  bool is_null(int column) const noexcept { return result_->is_null(row_, column); }

 protected:
  template <Type T>
  auto get(int column) const noexcept {
    if constexpr (T == Type::int8 || T == Type::int4) {
      return result_->int64(row_, column);
    } else if constexpr (T == Type::boolean) {
      return result_->boolean(row_, column);
    } else {
      return result_->text(row_, column);
    }
  }

 private:
  const Result* result_;
  int row_;
};

template <class Row>
Row Result::row(int n) const noexcept {
  return Row(*this, n);
}

}  // namespace storeapi::db

#define STOREAPI_DB_ROW_INDEX_(name, type) name,
#define STOREAPI_DB_ROW_COLUMN_(name, type) ::storeapi::db::Column{#name, ::storeapi::db::Type::type},
#define STOREAPI_DB_ROW_GETTER_(name, type) \
  auto name() const noexcept { return get<::storeapi::db::Type::type>(Index::name); }

#define STOREAPI_DB_ROW(Name, COLUMNS)                                             \
  class Name : public ::storeapi::db::RowView {                                    \
   public:                                                                         \
    struct Index {                                                                 \
      enum : int { COLUMNS(STOREAPI_DB_ROW_INDEX_) };                              \
    };                                                                             \
    static constexpr ::storeapi::db::Column columns[] = {COLUMNS(STOREAPI_DB_ROW_COLUMN_)}; \
    using RowView::RowView;                                                        \
    COLUMNS(STOREAPI_DB_ROW_GETTER_)                                               \
  }
