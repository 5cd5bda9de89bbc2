// storeapi-admin and pods (docs/DECISIONS.md, "Pods"): `pod add` migrates, registers and
// announces a pod; `pod list` shows the pods and their stores; `store create --pod`
// places a store and copies its directory rows to the pod; every command on a store's
// data runs on the store's pod, and one on its directory rows keeps the pod's copies in
// step. The pod here is a second database of the test cluster: to the tool, a pod is a
// URL.
// Seen failing: with connect_to_store_pod answering the directory for every store, the
// seed and the webhook landed in the directory (DataCommandsRunOnTheStoresPod) and the
// fenced store took its endpoint; with copy_store_to_pod doing nothing, the pod had no
// copy (StoreCreateOnAPod...) and the seed failed on its foreign key; without
// claim_store_write in add_webhook, the fenced store took the endpoint; with `migrate`
// skipping the pods, the pod's dropped function record stayed gone.
#include "admin_fixture.hpp"

#include <optional>

namespace storeapi::testing {
namespace {

// One directory and one pod, `eu`, for the suite; each test has stores of its own.
class Pods : public AdminTest {
 protected:
  static void SetUpTestSuite() {
    AdminTest::SetUpTestSuite();
    pod_ = new TestDatabase(TestDatabase::Schema::empty);  // as an operator has it before `pod add`
    CliResult r = run_admin({"pod", "add", "--name", "eu", "--url", pod_->url()}, db().url());
    if (r.exit_code != 0) throw std::runtime_error("pod add: " + r.err);
  }
  static void TearDownTestSuite() {
    AdminTest::TearDownTestSuite();
    delete pod_;
    pod_ = nullptr;
  }

  static TestDatabase& pod() { return *pod_; }

  std::string create_store_on(const std::string& pod, const std::string& slug) {
    auto json = ok({"store", "create", "--name", "Fjord " + slug, "--slug", slug, "--currency", "NOK", "--plan",
                    "advanced", "--owner-email", "owner@" + slug + ".example", "--pod", pod});
    EXPECT_EQ(str(json, "pod"), pod);
    return str(json, "id");
  }

  static std::string value_in(TestDatabase& database, const std::string& sql) {
    auto conn = database.connect();
    pqxx::work work(*conn);
    auto field = work.exec1(sql)[0];
    std::string value = field.is_null() ? "" : field.c_str();
    work.commit();
    return value;
  }
  static std::string pod_value(const std::string& sql) { return value_in(pod(), sql); }

 private:
  static inline TestDatabase* pod_ = nullptr;
};

TEST_F(Pods, AddMigratesRegistersAndAnnouncesThePod) {
  TestDatabase fresh(TestDatabase::Schema::empty);
  auto conn = db().connect();
  Listener listener(*conn, "storeapi_invalidate");
  auto json = ok({"pod", "add", "--name", "eu-1", "--url", fresh.url(), "--replica-urls",
                  "postgresql://127.0.0.1:1/a,postgresql://127.0.0.1:2/a"});
  EXPECT_EQ(str(json, "object"), "pod");
  EXPECT_EQ(str(json, "name"), "eu-1");
  EXPECT_EQ(str(json, "url"), fresh.url());
  EXPECT_EQ(json["replica_urls"].get_array().size(), 2u);
  EXPECT_EQ(std::string_view(json["replica_urls"].at(1)), "postgresql://127.0.0.1:2/a");
  EXPECT_TRUE(flag(json, "created"));
  EXPECT_EQ(num(json, "store_count"), 0);
  EXPECT_EQ(json["stores"].get_array().size(), 0u);
  EXPECT_GT(json["migrations"]["applied"].get_array().size(), 0u);
  EXPECT_EQ(str(json["migrations"], "current"), query_value("select max(version) from schema_migrations"));
  // The same cluster as the directory's: its settings are the pod's.
  std::string wal_level = query_value("select current_setting('wal_level')");
  EXPECT_EQ(str(json, "wal_level"), wal_level);
  EXPECT_EQ(flag(json, "can_be_moved_from"),
            wal_level == "logical" && query_value("select current_setting('max_replication_slots')::int > 0 and "
                                                  "current_setting('max_wal_senders')::int > 0") == "t");
  EXPECT_TRUE(listener.wait_for("pod:eu-1"));

  EXPECT_EQ(value_in(fresh, "select count(*) from schema_migrations"),
            query_value("select count(*) from schema_migrations"));
  EXPECT_EQ(value_in(fresh, "select count(*) from schema_functions"),
            query_value("select count(*) from schema_functions"));
  EXPECT_EQ(query_value("select url || ' ' || cardinality(replica_urls) from pods where name = 'eu-1'"),
            fresh.url() + " 2");

  // Again with the same URL: nothing to migrate, the standbys replaced.
  auto again = ok({"pod", "add", "--name", "eu-1", "--url", fresh.url(), "--replica-urls", "postgresql://127.0.0.1:3/a"});
  EXPECT_FALSE(flag(again, "created"));
  EXPECT_EQ(again["migrations"]["applied"].get_array().size(), 0u);
  EXPECT_EQ(query_value("select replica_urls::text from pods where name = 'eu-1'"), "{postgresql://127.0.0.1:3/a}");
  // Another URL under the same name, or the same URL under another name: refused.
  TestDatabase other(TestDatabase::Schema::empty);
  EXPECT_NE(fails({"pod", "add", "--name", "eu-1", "--url", other.url()}, 1).find("exists with another URL"),
            std::string::npos);
  EXPECT_NE(fails({"pod", "add", "--name", "eu-9", "--url", fresh.url()}, 1).find("is pod 'eu-1' already"),
            std::string::npos);
  query_value("delete from pods where name = 'eu-1' returning 1");  // its database goes with this test
}

TEST_F(Pods, AddRefusesPasswordsTheDirectoryItselfAndBadNames) {
  TestDatabase fresh(TestDatabase::Schema::empty);
  std::string secret = "s3cret-in-argv";
  std::string refused = fails({"pod", "add", "--name", "eu-2", "--url", "postgresql://app:" + secret + "@127.0.0.1/x"}, 2);
  EXPECT_NE(refused.find("--url must not carry a password"), std::string::npos) << refused;
  EXPECT_NE(refused.find("PGPASSFILE"), std::string::npos) << refused;
  EXPECT_EQ(refused.find(secret), std::string::npos) << refused;
  refused = fails({"pod", "add", "--name", "eu-2", "--url", fresh.url(), "--replica-urls",
                   "postgresql://127.0.0.1/x,host=127.0.0.1 password=" + secret},
                  2);
  EXPECT_NE(refused.find("--replica-urls must not carry a password"), std::string::npos) << refused;
  EXPECT_EQ(refused.find(secret), std::string::npos) << refused;
  fails({"pod", "add", "--name", "eu-2", "--url", fresh.url(), "--replica-urls", "postgresql://127.0.0.1/x,"}, 2);

  EXPECT_NE(fails({"pod", "add", "--name", "eu-2", "--url", db().url()}, 1).find("directory's own database"),
            std::string::npos);
  EXPECT_NE(fails({"pod", "add", "--name", "main", "--url", fresh.url()}, 1).find("always there"), std::string::npos);
  EXPECT_NE(fails({"pod", "add", "--name", "EU 2", "--url", fresh.url()}, 2).find("--name"), std::string::npos);
  EXPECT_NE(fails({"pod", "add", "--name", "eu-2", "--url", "postgresql://127.0.0.1:1/nowhere?connect_timeout=2"}, 1)
                .find("cannot reach pod 'eu-2'"),
            std::string::npos);
  EXPECT_EQ(value_in(fresh, "select count(*) from pg_tables where schemaname = 'public'"), "0");
}

TEST_F(Pods, StoreCreateOnAPodCopiesTheStoreAndItsStaffThere) {
  std::string id = create_store_on("eu", "fjord-eu3");
  EXPECT_EQ(query_value("select pod from stores where id = '" + id + "'"), "eu");
  EXPECT_EQ(pod_value("select slug || ' ' || currency || ' ' || plan || ' ' || owner_email from stores where id = '" +
                      id + "'"),
            "fjord-eu3 NOK advanced owner@fjord-eu3.example");
  EXPECT_EQ(pod_value("select count(*) from staff_members where store_id = '" + id + "' and is_owner"), "1");
  EXPECT_EQ(pod_value("select id from staff_members where store_id = '" + id + "'"),
            query_value("select id from staff_members where store_id = '" + id + "'"));

  // Changes of the directory's rows reach the copies.
  ok({"staff", "add", "--store", id, "--email", "clerk@fjord-eu3.example", "--access", "orders:read"});
  EXPECT_EQ(pod_value("select orders_access from staff_members where store_id = '" + id +
                      "' and email = 'clerk@fjord-eu3.example'"),
            "read");
  ok({"store", "set-plan", "--store", id, "--plan", "pro"});
  ok({"store", "set-rate-limit", "--store", id, "--rpm", "77"});
  EXPECT_EQ(pod_value("select plan || ' ' || rate_limit_rpm from stores where id = '" + id + "'"), "pro 77");
  EXPECT_EQ(pod_value("select updated_at::text from stores where id = '" + id + "'"),
            query_value("select updated_at::text from stores where id = '" + id + "'"));

  // A store on main has no copy on the pod; an unknown pod writes nothing anywhere.
  TestStore on_main = db().create_store();
  EXPECT_EQ(pod_value("select count(*) from stores where id = '" + on_main.id + "'"), "0");
  std::string before = pod().fingerprint();
  EXPECT_NE(fails({"store", "create", "--name", "Nowhere", "--slug", "nowhere", "--currency", "EUR", "--plan", "pro",
                   "--owner-email", "o@nowhere.example", "--pod", "mars"},
                  1)
                .find("no pod named 'mars'"),
            std::string::npos);
  EXPECT_EQ(pod().fingerprint(), before);
}

TEST_F(Pods, ListShowsEveryPodWithItsStores) {
  TestStore on_main = db().create_store();
  std::string id = create_store_on("eu", "fjord-eu4");
  auto json = ok({"pod", "list"});
  EXPECT_EQ(str(json, "object"), "list");
  auto pods = json["data"].get_array().value();
  ASSERT_GE(pods.size(), 2u);
  auto main = pods.at(0).value();
  EXPECT_EQ(str(main, "name"), "main");
  EXPECT_TRUE(main["url"].is_null());
  EXPECT_EQ(num(main, "store_count"), std::stoll(query_value("select count(*) from stores where pod = 'main'")));
  bool listed = false;
  for (auto store : main["stores"].get_array()) listed = listed || str(store, "id") == on_main.id;
  EXPECT_TRUE(listed);
  std::optional<simdjson::dom::element> found;
  for (auto pod : pods)
    if (str(pod, "name") == "eu") found = pod;
  ASSERT_TRUE(found);
  auto eu = *found;
  EXPECT_EQ(str(eu, "url"), pod().url());
  EXPECT_EQ(num(eu, "store_count"), std::stoll(query_value("select count(*) from stores where pod = 'eu'")));
  std::string slug;
  for (auto store : eu["stores"].get_array())
    if (str(store, "id") == id) slug = str(store, "slug");
  EXPECT_EQ(slug, "fjord-eu4");
  // One style throughout: the stores were jsonb's text (`{"id": "…", "slug": "…"}`)
  // inside the tool's compact JSON.
  CliResult r = run_admin({"pod", "list"}, db().url());
  EXPECT_NE(r.out.find(R"({"id":")" + id + R"(","slug":"fjord-eu4"})"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\": "), std::string::npos) << r.out;
}

TEST_F(Pods, DataCommandsRunOnTheStoresPod) {
  std::string id = create_store_on("eu", "fjord-eu5");
  auto conn = db().connect();
  Listener listener(*conn, "storeapi_invalidate");

  auto seeded = ok({"seed", "--store", id});
  EXPECT_GT(num(seeded, "products"), 0);
  EXPECT_EQ(pod_value("select count(*) from products where store_id = '" + id + "'"),
            std::to_string(num(seeded, "products")));
  EXPECT_EQ(query_value("select count(*) from products where store_id = '" + id + "'"), "0");
  EXPECT_TRUE(listener.wait_for("store:" + id));  // on the directory, where the servers listen

  std::string variant = pod_value("select variant_id from stock_movements where store_id = '" + id + "' limit 1");
  auto history = ok({"stock", "history", "--store", id, "--variant", variant});
  EXPECT_GT(history["data"].get_array().size(), 0u);

  auto hook = ok({"webhook", "add", "--store", id, "--url", "https://erp.fjord-eu5.example/hooks"});
  std::string webhook = str(hook, "id");
  EXPECT_EQ(pod_value("select store_id from webhook_endpoints where id = '" + webhook + "'"), id);
  EXPECT_EQ(query_value("select count(*) from webhook_endpoints where store_id = '" + id + "'"), "0");
  EXPECT_EQ(ok({"webhook", "list", "--store", id})["data"].get_array().size(), 1u);
  ok({"webhook", "disable", "--webhook", webhook});
  EXPECT_EQ(pod_value("select enabled from webhook_endpoints where id = '" + webhook + "'"), "f");
  ok({"webhook", "enable", "--webhook", webhook});
  std::string secret = str(ok({"webhook", "rotate-secret", "--webhook", webhook}), "secret");
  EXPECT_EQ(pod_value("select secret from webhook_endpoints where id = '" + webhook + "'"), secret);

  std::string event = pod_value("select api.emit_event('" + id + "', 'product.updated', '{}')");
  auto redelivered = ok({"event", "redeliver", "--event", event});
  EXPECT_EQ(str(redelivered, "store_id"), id);
  EXPECT_EQ(pod_value("select count(*) from webhook_deliveries where event_id = '" + event + "'"), "1");
  ok({"event", "redeliver", "--event", event, "--store", id});
  auto deliveries = ok({"webhook", "deliveries", "--store", id});
  EXPECT_EQ(deliveries["data"].get_array().size(), 1u);
  EXPECT_EQ(str(ok({"retention", "--pod", "eu"}), "object"), "retention");
  fails({"retention", "--pod", "mars"}, 1);
}

TEST_F(Pods, AStoreFencedOnItsPodTakesNoAdminWrite) {
  std::string id = create_store_on("eu", "fjord-eu6");
  pod_value("insert into store_fences (store_id, epoch, writes_fenced, dispatch_paused) values ('" + id +
            "', 2, true, true) returning 1");
  std::string before = pod().fingerprint();
  EXPECT_NE(fails({"webhook", "add", "--store", id, "--url", "https://erp.fjord-eu6.example/hooks"}, 1)
                .find("being moved"),
            std::string::npos);
  EXPECT_NE(fails({"staff", "add", "--store", id, "--email", "late@fjord-eu6.example"}, 1).find("being moved"),
            std::string::npos);
  EXPECT_EQ(pod().fingerprint(), before);
}

TEST_F(Pods, MigrateAlsoMigratesEveryPod) {
  pod_value("delete from schema_functions where name = '20_outbox' returning 1");
  auto json = ok({"migrate"});
  std::optional<simdjson::dom::element> found;
  for (auto pod : json["pods"].get_array())
    if (str(pod, "name") == "eu") found = pod;
  ASSERT_TRUE(found);
  auto eu = *found;
  ASSERT_EQ(eu["applied"].get_array().size(), 1u);
  EXPECT_EQ(std::string_view(eu["applied"].at(0)), "functions/20_outbox");
  EXPECT_EQ(pod_value("select count(*) from schema_functions where name = '20_outbox'"), "1");
}

}  // namespace
}  // namespace storeapi::testing
