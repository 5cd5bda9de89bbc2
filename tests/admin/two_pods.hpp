#pragma once
// Two PostgreSQL clusters of a test's own (wal_level = logical, so stores move between
// them): the directory and pod `main` on the first, pod `second` on the second, added
// with `storeapi-admin pod add` (migrated and registered). For the store move tests.
#include "support/test_database.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {

struct TwoPods {
  // Throws (with the command's message) when the pod cannot be added.
  TwoPods();

  // Declared first: the databases go before their clusters.
  ThrowawayCluster main_cluster;
  ThrowawayCluster second_cluster;
  TestDatabase directory{TestDatabase::Schema::migrated, main_cluster.url()};
  TestDatabase second{TestDatabase::Schema::empty, second_cluster.url()};
};

}  // namespace storeapi::testing
