#include "admin/move_tables.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

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
    std::string name = row[0].c_str();
    if (kDirectoryOnly.contains(name) || (name == "staff_members" && !directory_copies)) continue;
    tables.push_back({name, "store_id"});
  }
  if (directory_copies) tables.push_back({"stores", "id"});

  // Foreign keys among them: referencing table -> referenced tables.
  std::map<std::string, std::set<std::string>> references;
  for (const auto& row : work.exec(
           "select c.conrelid::regclass::text, c.confrelid::regclass::text from pg_constraint c"
           " where c.contype = 'f' and c.connamespace = 'public'::regnamespace and c.conrelid <> c.confrelid"))
    references[row[0].c_str()].insert(row[1].c_str());

  // Children first: a table goes once no table still waiting references it.
  std::vector<StoreTable> ordered;
  while (!tables.empty()) {
    auto free = std::find_if(tables.begin(), tables.end(), [&](const StoreTable& t) {
      return std::none_of(tables.begin(), tables.end(), [&](const StoreTable& other) {
        return other.name != t.name && references[other.name].contains(t.name);
      });
    });
    if (free == tables.end()) throw std::logic_error("the store's tables reference each other in a cycle");
    ordered.push_back(*free);
    tables.erase(free);
  }
  return ordered;
}

std::vector<StoreTable> without(std::vector<StoreTable> tables, const std::string& name) {
  std::erase_if(tables, [&](const StoreTable& t) { return t.name == name; });
  return tables;
}

long delete_store_rows(pqxx::transaction_base& work, const std::vector<StoreTable>& tables,
                       const std::string& store_id) {
  long deleted = 0;
  for (const auto& t : tables)
    deleted += static_cast<long>(
        work.exec_params("delete from " + work.conn().quote_name(t.name) + " where " + t.store_column + " = $1",
                         store_id)
            .affected_rows());
  return deleted;
}

}  // namespace storeapi::admin
