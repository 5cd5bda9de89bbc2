#include "admin/move/tables.hpp"

#include <set>

namespace storeapi::admin {
namespace {

// Tables with a store_id that live in the directory alone: a key is looked up before its
// store is known, and a move's record is the directory's.
const std::set<std::string> kDirectoryOnly = {"api_keys", "store_moves"};

}  // namespace

std::vector<StoreTable> store_tables(pqxx::transaction_base& work, bool directory_copies) {
  std::vector<StoreTable> tables;
  for (const auto& row : work.exec(
           "select c.relname from pg_class c"
           "  join pg_attribute a on a.attrelid = c.oid and a.attname = 'store_id' and not a.attisdropped"
           " where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition"
           " order by c.relname")) {
    std::string name = row["relname"].c_str();
    if (kDirectoryOnly.contains(name) || (name == "staff_members" && !directory_copies)) continue;
    tables.push_back({name, "store_id"});
  }
  if (directory_copies) tables.push_back({"stores", "id"});
  return tables;
}

std::vector<StoreTable> without(std::vector<StoreTable> tables, const std::string& name) {
  std::erase_if(tables, [&](const StoreTable& t) { return t.name == name; });
  return tables;
}

std::map<std::string, std::size_t> store_row_counts(pqxx::transaction_base& work, const std::vector<StoreTable>& tables,
                                                    const std::string& store_id) {
  std::map<std::string, std::size_t> counts;
  for (const auto& t : tables)
    counts[t.name] = work.exec_params1("select count(*) as rows from " + work.conn().quote_name(t.name) + " where " +
                                           t.store_column + " = $1",
                                       store_id)["rows"]
                         .as<std::size_t>();
  return counts;
}

long delete_store_rows(pqxx::transaction_base& work, const std::vector<StoreTable>& tables,
                       const std::string& store_id) {
  // Without the foreign keys' checks, as the subscription's apply runs: every row of the
  // store goes, so none is left referencing one deleted. With them, each product deleted
  // would scan the store's line items (their product reference has no index of its own):
  // the rows of a store of 100,000 orders went in 0.6-2.1 s, and with the checks had not
  // gone after two minutes (bench/RESULTS.md, "Store move").
  work.exec("set local session_replication_role = replica");
  long deleted = 0;
  for (const auto& t : tables)
    deleted += static_cast<long>(
        work.exec_params("delete from " + work.conn().quote_name(t.name) + " where " + t.store_column + " = $1",
                         store_id)
            .affected_rows());
  return deleted;
}

}  // namespace storeapi::admin
