// api::Pods on a core of the test's own, against the real directory (a fresh database on
// the test cluster, its `pods` table as `pod add` fills it): main is the directory's pool;
// another pod's pool is made from the table on first use; a pod the table does not list
// is looked for again at most once per kPodReloadInterval per core (a store placed on a
// pod this node cannot learn of must not send every request to the directory), and
// reload() — what the `pod:<name>` notice runs — learns it at once.
// Seen failing: with reload_for_unknown not bounded (its interval check removed), the
// second lookup below found the pod registered meanwhile; with reload() not replacing the
// book, the third did not.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "api/routing/pods.hpp"
#include "api/statements.hpp"
#include "runtime/io.hpp"
#include "support/event_wait.hpp"
#include "support/run_task.hpp"
#include "support/test_database.hpp"

namespace storeapi::api {
namespace {

using namespace std::chrono_literals;
using testing::TestDatabase;

class PodRegistry : public ::testing::Test {
 protected:
  PodRegistry() : directory_(options(directory_db_), statements()), pods_(directory_, nullptr, book_, 10ms) {}

  static db::PoolOptions options(const TestDatabase& db) {
    db::PoolOptions o;
    o.url = db.url();
    o.connections = 1;
    return o;
  }

  // Runs `body` inside a core whose directory pool is connected.
  void in_core(const std::function<runtime::task<void>()>& body) {
    testing::run_on_reactor([&]() -> runtime::task<void> {
      directory_.start();
      const bool ready = co_await testing::until(directory_.changed(), 10s, [&] { return directory_.ready(); });
      EXPECT_TRUE(ready);
      co_await body();
    });
  }

  void register_pod(const std::string& name, const TestDatabase& on) {
    auto conn = directory_db_.connect();
    pqxx::work work(*conn);
    work.exec_params("insert into pods (name, url) values ($1, $2)", name, on.url());
    work.commit();
  }

  TestDatabase directory_db_;
  TestDatabase second_db_;
  db::PodAddressBook book_;
  // Outlive the reactor loop: their drivers may still be suspended in it.
  db::Pool directory_;
  Pods pods_;
};

TEST_F(PodRegistry, MainIsTheDirectorysPool) {
  in_core([&]() -> runtime::task<void> {
    Pod* main = co_await pods_.find("main");
    EXPECT_TRUE(main && &main->primary() == &directory_);
    EXPECT_FALSE(pods_.may_have_standbys("main"));
  });
}

TEST_F(PodRegistry, APodIsLearnedFromTheDirectoryBoundedlyOrAtOnceOnReload) {
  in_core([&]() -> runtime::task<void> {
    EXPECT_EQ(co_await pods_.find("second"), nullptr);  // not listed: looked for, not found
    register_pod("second", second_db_);
    // Looked for again within the interval: not asked again.
    EXPECT_EQ(co_await pods_.find("second"), nullptr);
    EXPECT_TRUE(co_await pods_.reload());  // the `pod:second` notice
    Pod* second = co_await pods_.find("second");
    EXPECT_TRUE(second && second->primary().ready());
    EXPECT_NE(second ? &second->primary() : nullptr, &directory_);
    EXPECT_EQ(co_await pods_.find("second"), second);  // made once per core
    EXPECT_FALSE(pods_.may_have_standbys("second"));

    // Past the interval, a pod met for the first time is looked for again by itself.
    register_pod("third", second_db_);
    co_await runtime::sleep_for(kPodReloadInterval);
    EXPECT_NE(co_await pods_.find("third"), nullptr);
  });
}

// A unit on a pod's pool runs in the pod's database, not the directory's.
TEST_F(PodRegistry, APodsPoolRunsInItsOwnDatabase) {
  register_pod("second", second_db_);
  in_core([&]() -> runtime::task<void> {
    Pod* second = co_await pods_.find("second");
    EXPECT_NE(second, nullptr);
    if (!second) co_return;
    db::Unit unit;
    unit.add(db::kPodAddresses, {});  // prepared on every pool: the statements are the directory's
    EXPECT_EQ(co_await second->primary().run(unit), db::Outcome::done);
    EXPECT_TRUE(unit.result(0).ok());
    EXPECT_EQ(unit.result(0).rows(), 1);  // the pod's own table: main only
  });
}

}  // namespace
}  // namespace storeapi::api
