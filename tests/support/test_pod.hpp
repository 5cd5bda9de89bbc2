#pragma once
// A pod of a test's own (docs/DECISIONS.md, "Pods"), set up the way `storeapi-admin pod
// add` and `store create --pod` leave one, by SQL: a migrated database (on the test's
// cluster or a ThrowawayCluster) registered in the directory's `pods` table, and stores
// placed on it with their `stores` and `staff_members` rows copied there.
//
//   TestDatabase directory;                              // main and the directory
//   ThrowawayCluster cluster;
//   TestPod second(directory, "second", cluster.url());  // registered
//   auto store = directory.create_store();
//   second.place(store.id);                              // its data now goes there
#include <string>

#include "support/test_database.hpp"

namespace storeapi::testing {

class TestPod {
 public:
  // Creates and migrates the pod's database on the cluster of `cluster_url` and registers
  // it in `directory` under `name`.
  TestPod(TestDatabase& directory, std::string name, const std::string& cluster_url);

  const std::string& name() const { return name_; }
  TestDatabase& database() { return db_; }

  // Places the directory's store `store_id` on this pod: copies its `stores` and
  // `staff_members` rows here (their data's foreign keys need them), then points its
  // placement at this pod with the next epoch. The store should have no data yet (none is
  // copied) and no server should have cached it (no notice is sent).
  void place(const std::string& store_id);

 private:
  TestDatabase& directory_;
  std::string name_;
  TestDatabase db_;
};

}  // namespace storeapi::testing
