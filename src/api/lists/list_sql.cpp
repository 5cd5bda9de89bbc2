#include "api/lists/list_sql.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace storeapi::api {
namespace {

constexpr std::string_view path_name(PagePath path) {
  switch (path) {
    case PagePath::walk: return "walk";
    case PagePath::sync: return "sync";
    case PagePath::selective: return "selective";
  }
  return "";
}

// "$n". (Built by appending: g++ 12 warns falsely on "$" + std::to_string(n).)
std::string param(int n) {
  std::string out("$");
  out += std::to_string(n);
  return out;
}

// `condition` with every `$?` replaced by `$n`.
std::string numbered(std::string_view condition, int n) {
  std::string out;
  const std::string placeholder = param(n);
  for (std::size_t i = 0; i < condition.size(); ++i) {
    if (condition.compare(i, 2, "$?") == 0) {
      out += placeholder;
      ++i;
    } else {
      out += condition[i];
    }
  }
  return out;
}

// The parameters every page statement starts with (list_sql.hpp).
constexpr db::Column kPageParams[] = {{"store", db::Type::uuid},           {"after_created_at", db::Type::timestamptz},
                                      {"after_id", db::Type::uuid},        {"before_created_at", db::Type::timestamptz},
                                      {"before_id", db::Type::uuid},       {"limit", db::Type::int8}};

// The conditions and parameters every path shares.
struct Conditions {
  std::string keyset;    // the two exclusive (created_at, id) bounds
  std::string filters;   // " and ..." for each non-selective filter
  std::string updated;   // the updated_at window (sync and selective paths, if the list has one)
  std::string updated_before;  // its upper end's parameter
  std::string selective;  // the selective filter's condition (selective path)
  int params = 6;        // how many the statement takes
  std::array<db::Column, 6 + kMaxFilters + 2 + 1> declared{};  // $1 .. $params

  // The next parameter's number, declared as `name` of `type`.
  int next(const char* name, db::Type type) {
    declared[static_cast<std::size_t>(params)] = {name, type};
    return ++params;
  }
};

// The two exclusive (created_at, id) bounds, $2/$3 and $4/$5, on the rows named `alias`.
// (Built by appending, as param() is.)
std::string keyset(std::string_view alias) {
  std::string row("(");
  row.append(alias).append(".created_at, ").append(alias).append(".id)");
  std::string out(row);
  out.append(" > ($2::timestamptz, $3::uuid) and ").append(row).append(" < ($4::timestamptz, $5::uuid)");
  return out;
}

Conditions conditions(const ListSpec& spec, PagePath path) {
  Conditions c;
  std::copy(std::begin(kPageParams), std::end(kPageParams), c.declared.begin());
  c.keyset = keyset("r");
  const FilterSpec* selective = nullptr;
  for (const FilterSpec& filter : spec.filters) {
    if (filter.selective) {
      selective = &filter;
      continue;
    }
    c.filters += " and " + numbered(filter.condition, c.next("filter", db::Type::text));
  }
  if (path != PagePath::walk && spec.updated_bounds) {
    const std::string after = param(c.next("updated_after", db::Type::timestamptz));
    const std::string before = param(c.next("updated_before", db::Type::timestamptz));
    c.updated = "r.updated_at > " + after + "::timestamptz and r.updated_at < " + before + "::timestamptz";
    c.updated_before = before;
  }
  if (path == PagePath::selective) c.selective = numbered(selective->condition, c.next("selective_filter", db::Type::text));
  return c;
}

std::string order_by(bool ascending, std::string_view alias = "r") {
  const std::string a(alias);
  return ascending ? " order by " + a + ".created_at, " + a + ".id"
                   : " order by " + a + ".created_at desc, " + a + ".id desc";
}

std::string documents() { return "select r.doc, r.created_at, r.id"; }

// Walk and selective: one ordered, limited read. For the walk the planner follows the
// (store_id, created_at, id) index.
std::string direct_sql(std::string_view table, const Conditions& c, PagePath path, bool ascending) {
  std::string sql = documents() + " from " + std::string(table) + " r where r.store_id = $1 and " + c.keyset + c.filters;
  if (!c.updated.empty()) sql += " and " + c.updated;
  if (path == PagePath::selective) sql += " and " + c.selective;
  return sql + order_by(ascending) + " limit $6";
}

// Sync: `changed` holds the ids and created_at of the records in the updated_at window,
// read from its index, which includes created_at (sql/032_sync_index_created_at.sql):
// index-only where the visibility map allows, capped one past kSyncCandidates.
// At most that many: they are cut at the keyset bounds and sorted there, before any record
// is read (`offset 0` keeps that subquery, and so its order, whole), and the records are
// then fetched by primary key in that order, each checked against the filters (a lateral
// subquery with `limit 1`: never flattened into a join, so always this nested loop), until
// `limit $6` have passed: without filters, limit + 1 lookups, however many changed.
// More: the created_at walk checks the window on the way. There the window is written as
// `(…) is true`, which no index can serve, because a generic plan would otherwise read
// the whole window from the updated_at index and sort it (2.7 s for a 1,000,000-record
// window); and since created_at <= updated_at, the window's upper end also bounds the
// walk. Either branch reads its records' documents as it keeps them, so a record the page
// leaves out (outside the bounds, filtered out, past the limit) is never fetched whole.
std::string sync_sql(std::string_view table_name, const Conditions& c, bool ascending) {
  const std::string table(table_name);
  const std::string cap = std::to_string(kSyncCandidates);
  const std::string count = "(select count(*) from changed)";
  return "with changed as materialized (select r.id, r.created_at from " + table + " r where r.store_id = $1 and " +
         c.updated + " limit " + std::to_string(kSyncCandidates + 1) +
         "), page as ((select r.doc, c.created_at, c.id from (select c.id, c.created_at from changed c where " + count +
         " <= " + cap + " and " + keyset("c") + order_by(ascending, "c") +
         " offset 0) c cross join lateral (select r.doc from " + table +
         " r where r.store_id = $1 and r.id = c.id" + c.filters + " limit 1) r" + order_by(ascending, "c") +
         " limit $6) union all (select r.doc, r.created_at, r.id from " + table + " r where " + count + " > " + cap +
         " and r.store_id = $1 and " + c.keyset + " and r.created_at < " + c.updated_before + "::timestamptz" +
         c.filters + " and (" + c.updated + ") is true" + order_by(ascending) + " limit $6)) " +
         documents() + " from page r" + order_by(ascending);
}

}  // namespace

ReadStatements::ReadStatements(std::string_view table, const ListSpec& spec) {
  slots_.fill(-1);
  add(std::string(table) + "_get", "select r.doc from " + std::string(table) + " r where r.store_id = $1 and r.id = $2",
      {db::Column{"store", db::Type::uuid}, db::Column{"id", db::Type::uuid}}, 2, Document::columns);
  bool has_selective = false;
  for (const FilterSpec& filter : spec.filters) has_selective = has_selective || filter.selective;
  for (bool ascending : {false, true}) {
    const Conditions walk = conditions(spec, PagePath::walk);
    add_page(PagePath::walk, ascending, table, direct_sql(table, walk, PagePath::walk, ascending), walk.declared,
             static_cast<std::size_t>(walk.params));
    if (spec.updated_bounds) {
      const Conditions sync = conditions(spec, PagePath::sync);
      add_page(PagePath::sync, ascending, table, sync_sql(table, sync, ascending), sync.declared,
               static_cast<std::size_t>(sync.params));
    }
    if (has_selective) {
      const Conditions selective = conditions(spec, PagePath::selective);
      add_page(PagePath::selective, ascending, table,
               direct_sql(table, selective, PagePath::selective, ascending), selective.declared,
               static_cast<std::size_t>(selective.params));
    }
  }
}

std::size_t ReadStatements::add(std::string name, std::string sql, const Params& params, std::size_t count,
                                std::span<const db::Column> columns) {
  const std::size_t i = count_++;
  names_[i] = std::move(name);
  sqls_[i] = std::move(sql);
  params_[i] = params;
  statements_[i] = db::Statement{names_[i].c_str(), sqls_[i].c_str(), {params_[i].data(), count}, columns};
  return i;
}

void ReadStatements::add_page(PagePath path, bool ascending, std::string_view table, std::string sql,
                              const Params& params, std::size_t count) {
  const std::size_t i = add(std::string(table) + "_" + std::string(path_name(path)) + (ascending ? "_asc" : "_desc"),
                            std::move(sql), params, count, PageEntry::columns);
  slots_[static_cast<std::size_t>(path) * 2 + (ascending ? 1 : 0)] = static_cast<int>(i);
}

const db::Statement& ReadStatements::statement(PagePath path, bool ascending) const {
  const int slot = slots_[static_cast<std::size_t>(path) * 2 + (ascending ? 1 : 0)];
  if (slot < 0) throw std::logic_error("ReadStatements: no statement for this path");
  return statements_[static_cast<std::size_t>(slot)];
}

}  // namespace storeapi::api
