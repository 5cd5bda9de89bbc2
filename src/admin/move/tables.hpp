#pragma once
// The tables that hold a store's rows on a pod, as a store move (admin/move/store_move.hpp)
// copies, compares and deletes them. Read from the catalogue, so a table added by a later
// migration moves with the store without being listed here: every table with a store_id
// column (a partitioned table by its root, not its partitions), except those that live in
// the directory only.
#include <pqxx/pqxx>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace storeapi::admin {

struct StoreTable {
  std::string name;
  std::string store_column;  // store_id; id for `stores`
};

// The store's tables on the database of `work`. `directory_copies`: with
// `stores` and `staff_members`, the rows a pod other than main holds as copies of the
// directory's (docs/DECISIONS.md, "Pods"); without them for main, where they are the
// directory itself. API keys and move records are never among them: they stay in the
// directory.
std::vector<StoreTable> store_tables(pqxx::transaction_base& work, bool directory_copies);

// Every table of `tables` but `name`.
std::vector<StoreTable> without(std::vector<StoreTable> tables, const std::string& name);

// The store's rows in each of `tables` (by name), counted on the database of `work`: the
// total a move's copy reports its progress against.
std::map<std::string, std::size_t> store_row_counts(pqxx::transaction_base& work, const std::vector<StoreTable>& tables,
                                                    const std::string& store_id);

// Deletes the store's rows from `tables` in the caller's transaction; returns how many.
long delete_store_rows(pqxx::transaction_base& work, const std::vector<StoreTable>& tables,
                       const std::string& store_id);

}  // namespace storeapi::admin
