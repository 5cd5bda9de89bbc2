// The connection cap against the open-file limit (app/open_files.hpp): what the
// descriptors besides connections take, and what is left for connections.
#include <gtest/gtest.h>

#include "app/open_files.hpp"

namespace storeapi::app {
namespace {

TEST(OpenFiles, EachCoreReservesItsOwnDescriptorsAndDatabaseConnections) {
  std::size_t one_core = reserved_descriptors(1, 2);
  EXPECT_EQ(reserved_descriptors(2, 2) - one_core, one_core - reserved_descriptors(0, 2));
  EXPECT_EQ(reserved_descriptors(1, 5) - reserved_descriptors(1, 2), 3u);  // one per database connection
}

TEST(OpenFiles, EveryStandbyIsOneMoreDatabaseConnectionPerCore) {
  Config config;
  config.db_conns_per_thread = 2;
  EXPECT_EQ(database_connections_per_core(config), 2u);
  config.replica_urls = {"postgresql://standby-1/store", "postgresql://standby-2/store"};
  EXPECT_EQ(database_connections_per_core(config), 4u);
}

TEST(OpenFiles, ConnectionsGetWhatIsLeftAfterTheReserve) {
  std::size_t reserved = reserved_descriptors(2, 2);
  EXPECT_EQ(connections_within(20'000, 2, 2), 20'000 - reserved);
  EXPECT_EQ(connections_within(reserved + 1, 2, 2), 1u);
  EXPECT_EQ(connections_within(reserved, 2, 2), 0u);
  EXPECT_EQ(connections_within(3, 2, 2), 0u);  // never wraps around
}

}  // namespace
}  // namespace storeapi::app
