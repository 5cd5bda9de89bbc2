#pragma once
// The prepared statements that read a resource (docs/DECISIONS.md, "List queries"),
// generated once from the resource's table and its ListSpec, so every list has the same
// shape. Every record is returned as its stored document, the column `doc` that the
// resource's render trigger keeps (docs/DECISIONS.md, "Reads: stored documents"): a read
// renders nothing, so a record by id is exactly what its list shows.
//
// By id: ($1 store id, $2 id) → the document, at most one row.
//
// Pages: each statement returns, per record of the page, the document,
// created_at and id (the position a cursor needs), at most `limit + 1` records (one more
// than the page, to know whether another page exists), in the page's order.
//
// Three access paths, each in both orders, chosen by the parameters given:
//   walk       the (store_id, created_at, id) index from the cursor on, filters checked on
//              the way: a page costs the same at any depth.
//   sync       updated_after / updated_before given: the records changed in that window
//              are read from (store_id, updated_at, id) include (created_at) when they are
//              at most kSyncCandidates, cut at the keyset bounds and sorted there, and only
//              then read, in that order, until the page is full (limit + 1 lookups without
//              filters); when there are more, the walk (one statement, both paths, the
//              choice made by a count in the statement itself).
//   selective  a selective filter given (sku, email): its index finds the few records.
//
// Parameters, by number: $1 store id, $2/$3 lower bound (created_at, id) exclusive,
// $4/$5 upper bound exclusive, $6 row limit, then the non-selective filters in ListSpec
// order (text or null), then, for the sync and selective paths of lists that take them,
// updated_after and updated_before (never null: ±infinity when absent), then for the
// selective path its filter's value.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "api/lists/list_params.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"

namespace storeapi::api {

enum class PagePath : std::uint8_t { walk, sync, selective };

// More changed records than this and the sync path walks the created_at index instead.
// The candidates are sorted from the index alone, so the cap is conservative (figures:
// bench/RESULTS.md, "The sync poll's cost").
inline constexpr int kSyncCandidates = 5000;

// The columns of a by-id read and of a page's rows.
#define STOREAPI_DOCUMENT_COLUMNS(X) X(doc, text)
STOREAPI_DB_ROW(Document, STOREAPI_DOCUMENT_COLUMNS);
#define STOREAPI_PAGE_ENTRY_COLUMNS(X) X(doc, text) X(created_at, timestamptz) X(id, uuid)
STOREAPI_DB_ROW(PageEntry, STOREAPI_PAGE_ENTRY_COLUMNS);

class ReadStatements {
 public:
  // `table` (e.g. "orders") is read and names the statements: orders_get, orders_walk_desc, ...
  ReadStatements(std::string_view table, const ListSpec& spec);
  ReadStatements(const ReadStatements&) = delete;
  ReadStatements& operator=(const ReadStatements&) = delete;

  const db::Statement& by_id() const { return statements_[0]; }
  const db::Statement& statement(PagePath path, bool ascending) const;
  // Every statement of the resource's reads, for statements.cpp.
  std::span<const db::Statement> all() const { return {statements_.data(), count_}; }

 private:
  static constexpr std::size_t kMax = 7;  // by id, then three paths in two orders
  // The bounds and limit, the filters, the updated window and a selective filter.
  static constexpr std::size_t kMaxParams = 6 + kMaxFilters + 2 + 1;
  using Params = std::array<db::Column, kMaxParams>;
  // Returns the statement's index.
  std::size_t add(std::string name, std::string sql, const Params& params, std::size_t count,
                  std::span<const db::Column> columns);
  void add_page(PagePath path, bool ascending, std::string_view table, std::string sql, const Params& params,
                std::size_t count);

  std::array<std::string, kMax> names_;
  std::array<std::string, kMax> sqls_;
  std::array<Params, kMax> params_{};
  std::array<db::Statement, kMax> statements_{};
  std::array<int, 6> slots_{};  // index into statements_ by path * 2 + ascending; -1 when absent
  std::size_t count_ = 0;
};

}  // namespace storeapi::api
