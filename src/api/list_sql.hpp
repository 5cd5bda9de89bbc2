#pragma once
// The prepared statements that read a resource (docs/DECISIONS.md, "List queries"),
// generated once from the resource's SQL pieces and its ListSpec, so every list has the
// same shape and a record by id is rendered exactly as its list renders it.
//
// By id: ($1 store id, $2 id) → the rendered JSON, at most one row. The rendering's
// LATERAL joins are inlined into the statement (the single-row conveniences such as
// api.order_json(o) are not: a FROM in their body makes them planned per call, ~1 ms).
//
// Pages: each statement returns, per record of the page, the rendered JSON,
// created_at and id (the position a cursor needs), at most `limit + 1` records (one more
// than the page, to know whether another page exists), in the page's order.
//
// Three access paths, each in both orders, chosen by the parameters given:
//   walk       the (store_id, created_at, id) index from the cursor on, filters checked on
//              the way: a page costs the same at any depth.
//   sync       updated_after / updated_before given: the records changed in that window
//              are read from (store_id, updated_at, id) when they are at most
//              kSyncCandidates, then sorted; when there are more, the walk (one statement,
//              both paths, the choice made by a count in the statement itself).
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

#include "api/list_params.hpp"
#include "db/statement.hpp"

namespace storeapi::api {

// What differs between resources: the table, how a row `r` is rendered and the LATERAL
// joins the rendering uses (api.* functions of sql/functions/10_render.sql).
struct PageSource {
  std::string_view table;   // e.g. "orders"
  std::string_view render;  // e.g. "api.order_json(r, li.line_items)"
  std::string_view joins;   // e.g. "cross join lateral api.line_items_json(r.store_id, r.id) li"
};

enum class PagePath : std::uint8_t { walk, sync, selective };

// More changed records than this and the sync path walks the created_at index instead.
// Sorting the candidates costs about 3 µs each (1,316 in 4 ms, 6,783 in 22 ms, warm).
inline constexpr int kSyncCandidates = 5000;

class ReadStatements {
 public:
  // `prefix` names the statements, e.g. "orders" → orders_get, orders_walk_desc, ...
  ReadStatements(std::string_view prefix, const PageSource& source, const ListSpec& spec);
  ReadStatements(const ReadStatements&) = delete;
  ReadStatements& operator=(const ReadStatements&) = delete;

  const db::Statement& by_id() const { return statements_[0]; }
  const db::Statement& statement(PagePath path, bool ascending) const;
  // Every statement of the resource's reads, for statements.cpp.
  std::span<const db::Statement> all() const { return {statements_.data(), count_}; }

 private:
  static constexpr std::size_t kMax = 7;  // by id, then three paths in two orders
  // Returns the statement's index.
  std::size_t add(std::string name, std::string sql, int params);
  void add_page(PagePath path, bool ascending, std::string_view prefix, std::string sql, int params);

  std::array<std::string, kMax> names_;
  std::array<std::string, kMax> sqls_;
  std::array<db::Statement, kMax> statements_{};
  std::array<int, 6> slots_{};  // index into statements_ by path * 2 + ascending; -1 when absent
  std::size_t count_ = 0;
};

}  // namespace storeapi::api
