#include "support/test_pod.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {

TestPod::TestPod(TestDatabase& directory, std::string name, const std::string& cluster_url)
    : directory_(directory), name_(std::move(name)), db_(TestDatabase::Schema::migrated, cluster_url) {
  auto conn = directory_.connect();
  pqxx::work work(*conn);
  work.exec_params("insert into pods (name, url) values ($1, $2)", name_, api_url(db_));
  work.commit();
}

void TestPod::place(const std::string& store_id) {
  auto from = directory_.connect();
  std::string store, staff;
  {
    pqxx::nontransaction read(*from);
    // Rows as JSON, so that the copy names no column: both databases ran the same migrations.
    store = read.exec_params1("select row_to_json(s)::text from stores s where id = $1", store_id)[0].c_str();
    staff = read.exec_params1("select coalesce(json_agg(m), '[]')::text from staff_members m where store_id = $1",
                              store_id)[0]
                .c_str();
  }
  auto to = db_.connect();
  pqxx::work copy(*to);
  // The copy stays on `main` as this database's own pods table knows only that one.
  copy.exec_params("insert into stores select (json_populate_record(null::stores, $1::json)).* ", store);
  copy.exec_params("update stores set pod = 'main', placement_epoch = 1 where id = $1", store_id);
  copy.exec_params("insert into staff_members select * from json_populate_recordset(null::staff_members, $1::json)",
                   staff);
  copy.commit();
  pqxx::work flip(*from);
  flip.exec_params("update stores set pod = $2, placement_epoch = placement_epoch + 1 where id = $1", store_id, name_);
  flip.commit();
}

}  // namespace storeapi::testing
