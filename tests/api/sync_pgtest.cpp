// The sync pattern: record the time, change records, then list with updated_after and
// order=asc to get exactly what changed since. Also the sync statement's two paths (few
// changed records sorted from the updated_at index, many walked in created_at order).
#include <gtest/gtest.h>

#include "read_world_test.hpp"
#include "support/poll.hpp"

using namespace storeapi::testing;

namespace {

class Sync : public ReadWorldTest {
 protected:
  // More orders than the sync path sorts (kSyncCandidates, 5000), so both paths run.
  static void SetUpTestSuite() { start({std::vector<std::string>{"--orders", "6000"}}); }
  static void TearDownTestSuite() { stop(); }

  // "Now" as a client records it before a sync run: RFC 3339 UTC with microseconds. Returns
  // once the database clock has moved past it, so a change made next is stamped after it.
  static std::string sync_time() {
    const std::string t = world().column(
        "select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")[0];
    EXPECT_TRUE(eventually([&] { return world().column("select api.now_ms() > '" + t + "'")[0] == "t"; }, std::chrono::seconds(10)));
    return t;
  }

  // Changes `count` records of `table` picked by `offset`, as a writer would; their ids.
  static std::vector<std::string> touch(const std::string& table, const std::string& change, int count, int offset) {
    return world().column("update " + table + " set " + change + ", updated_at = api.now_ms() where store_id = '" +
                          store() + "' and id in (select id from " + table + " where store_id = '" + store() +
                          "' order by id offset " + std::to_string(offset) + " limit " + std::to_string(count) +
                          ") returning id");
  }

};

}  // namespace

TEST_F(Sync, ChangesSinceTheRecordedTimeComeBackOldestFirst) {
  const std::string t0 = sync_time();
  const auto orders = touch("orders", "tracking_number = 'TRACK-1'", 3, 10);
  const auto customers = touch("customers", "tags = array['synced']", 2, 3);
  const auto products = touch("products", "tags = array['synced']", 2, 5);
  ASSERT_EQ(orders.size(), 3u);

  const std::string changed = "updated_at > '" + t0 + "'";
  EXPECT_EQ(api().walk_ids("/v1/orders", "updated_after=" + t0 + "&order=asc"), expected("orders", changed, true));
  EXPECT_EQ(api().walk_ids("/v1/orders", "updated_after=" + t0 + "&order=asc&limit=1"), expected("orders", changed, true));
  EXPECT_EQ(api().walk_ids("/v1/orders", "updated_after=" + t0 + "&order=asc").size(), 3u);
  EXPECT_EQ(api().walk_ids("/v1/customers", "updated_after=" + t0 + "&order=asc"), expected("customers", changed, true));
  EXPECT_EQ(api().walk_ids("/v1/products", "updated_after=" + t0 + "&order=asc"),
            expected("products", changed + " and status <> 'deleted'", true));
  const Reply order = api().get("/v1/orders/" + orders[0]);
  EXPECT_EQ(order.json()["tracking_number"].get_string().value(), "TRACK-1");
  EXPECT_GT(std::string(order.json()["updated_at"].get_string().value()), t0.substr(0, 23));

  // The next run starts from its own recorded time and sees only what changed since.
  const std::string t1 = sync_time();
  const auto again = touch("orders", "tracking_carrier = 'DHL'", 1, 500);
  EXPECT_EQ(api().walk_ids("/v1/orders", "updated_after=" + t1 + "&order=asc"), again);
  // updated_before is strict too, and the window combines with the other filters.
  EXPECT_EQ(api().walk_ids("/v1/orders", "updated_after=" + t0 + "&updated_before=" + t1 + "&order=asc"),
            expected("orders", changed + " and updated_at < '" + t1 + "'", true));
  const std::string status = world().column("select status from orders where id = '" + orders[0] + "'")[0];
  EXPECT_EQ(api().walk_ids("/v1/orders", "updated_after=" + t0 + "&status=" + status),
            expected("orders", changed + " and status = '" + status + "'", false));
}

TEST_F(Sync, ManyChangesWalkInTheSameOrderAsFew) {
  const std::string t0 = sync_time();
  touch("orders", "tracking_carrier = 'UPS'", 5500, 0);  // past what the sync path sorts
  const std::string changed = "updated_at > '" + t0 + "'";
  for (const bool ascending : {true, false}) {
    const std::string order = ascending ? "&order=asc" : "";
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=100&updated_after=" + t0 + order),
              expected("orders", changed, ascending));
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=100&channel=marketplace&updated_after=" + t0 + order),
              expected("orders", changed + " and channel = 'marketplace'", ascending));
    // A window of old records only.
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=100&updated_before=" + t0 + order),
              expected("orders", "updated_at < '" + t0 + "'", ascending));
  }
}

// A sync page is cut from the changed records in (created_at, id) order before any of them
// is read, and they are then read in that order until the page is full: with a filter that
// leaves most of them out, each page still holds the next ones that pass, in either order,
// within created_at bounds too, and its cursor goes on from there.
TEST_F(Sync, AFilterThatLeavesMostChangesOutStillPagesInOrder) {
  const std::string t0 = sync_time();
  ASSERT_EQ(touch("orders", "tracking_carrier = 'GLS'", 400, 1000).size(), 400u);
  const std::string changed = "store_id = '" + store() + "' and updated_at > '" + t0 + "'";
  // The rarest channel among them, and a creation time in their middle.
  const std::string channel =
      world().column("select channel from orders where " + changed + " group by 1 order by count(*), 1 limit 1")[0];
  const std::string passing = changed + " and channel = '" + channel + "'";
  ASSERT_LT(std::stoi(world().column("select count(*) from orders where " + passing)[0]), 200);
  ASSERT_GT(std::stoi(world().column("select count(*) from orders where " + passing)[0]), 10);
  const std::string middle = world().column(
      "select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') from orders where " +
      changed + " order by created_at offset 200 limit 1")[0];
  for (const bool ascending : {true, false}) {
    const std::string order = ascending ? "&order=asc" : "";
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=7&channel=" + channel + "&updated_after=" + t0 + order),
              expected("orders", passing, ascending));
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=3&channel=" + channel + "&created_after=" + middle +
                                               "&updated_after=" + t0 + order),
              expected("orders", passing + " and created_at > '" + middle + "'", ascending));
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=10&created_before=" + middle + "&updated_after=" + t0 + order),
              expected("orders", changed + " and created_at < '" + middle + "'", ascending));
    // All three filters at once: few changed records pass, perhaps none.
    EXPECT_EQ(api().walk_ids("/v1/orders", "limit=5&channel=" + channel + "&status=refunded&fulfillment_status=" +
                                               "pending&updated_after=" + t0 + order),
              expected("orders", passing + " and status = 'refunded' and fulfillment_status = 'pending'", ascending));
  }
}
