#include "admin/pods/store_copies.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"

namespace storeapi::admin {
namespace {

// Inserts or updates `rows` (a JSON array of `table`'s rows) by `key`, every column
// taken from the rows: the column list is the pod's own, so a column added by a later
// migration is copied without a change here.
void upsert_rows(pqxx::work& work, const std::string& table, const std::string& key, const std::string& rows) {
  auto columns = work.exec_params1(
      "select string_agg(quote_ident(attname), ', ' order by attnum) as names,"
      "       string_agg('excluded.' || quote_ident(attname), ', ' order by attnum) as excluded"
      "  from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped",
      table);
  work.exec_params("insert into " + table + " select * from jsonb_populate_recordset(null::" + table +
                       ", $1::jsonb) on conflict (" + key + ") do update set (" + columns["names"].c_str() +
                       ") = row(" + columns["excluded"].c_str() + ")",
                   rows);
}

}  // namespace

void copy_store_to_pod(pqxx::work& directory_work, const std::string& store_id) {
  // On a pod, `pods` holds only main, as migrated: a copy's placement columns say
  // nothing (the directory's do), and `pod` is main to keep its foreign key.
  auto row = directory_work.exec_params1(
      "select s.pod,"
      "       jsonb_build_array(to_jsonb(s) || jsonb_build_object('pod', 'main'))::text as store,"
      "       (select coalesce(jsonb_agg(to_jsonb(m)), '[]') from staff_members m where m.store_id = s.id)::text"
      "         as staff"
      "  from stores s where s.id = $1",
      store_id);
  PodConnection pod = connect_to_pod(directory_work, row["pod"].c_str());
  if (pod.is_directory()) return;
  pqxx::work work(pod.get());
  work.exec("set local client_min_messages = warning");
  claim_store_write(work, store_id);
  upsert_rows(work, "stores", "id", row["store"].c_str());
  upsert_rows(work, "staff_members", "store_id, id", row["staff"].c_str());
  work.commit();
}

}  // namespace storeapi::admin
