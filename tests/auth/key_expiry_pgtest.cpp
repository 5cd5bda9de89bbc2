// The key lookup's expiry, read from sessions whose TimeZone and DateStyle are not the
// ones the server asks for (a pooler may drop a connection's startup options): the expiry
// must come out the same, never as "no expiry" (which would let an expired key in).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "auth/authenticator.hpp"
#include "common/crypto.hpp"
#include "common/time.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {
namespace {

class KeyExpiry : public ::testing::TestWithParam<const char*> {
 protected:
  // kKeyByHash's result for `key`, on a raw connection whose session runs `session_sql`.
  db::Result look_up(const std::string& key, const std::string& session_sql) {
    conn_.reset(PQconnectdb(db_.url().c_str()));
    EXPECT_EQ(PQstatus(conn_.get()), CONNECTION_OK) << PQerrorMessage(conn_.get());
    db::Result set(PQexec(conn_.get(), session_sql.c_str()));
    EXPECT_TRUE(set.ok()) << set.error_message();
    const std::string hex = crypto::hex(crypto::sha256(key));
    const char* params[] = {hex.c_str()};
    db::Result r(PQexecParams(conn_.get(), auth::kKeyByHash.sql, 1, nullptr, params, nullptr,
                              nullptr, 0));
    EXPECT_TRUE(r.ok()) << r.error_message();
    EXPECT_EQ(r.rows(), 1);
    return r;
  }

  TestDatabase db_;
  struct Finish {
    void operator()(PGconn* c) const { PQfinish(c); }
  };
  std::unique_ptr<PGconn, Finish> conn_;
};

TEST_P(KeyExpiry, IsTheSameInstantWhateverTheSessionSettings) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id, "full", "", "2020-01-01T00:00:00Z");
  db::Result r = look_up(key.key, GetParam());
  EXPECT_EQ(auth::key_expiry(r, 0), timefmt::parse_rfc3339("2020-01-01T00:00:00Z"));
}

TEST_P(KeyExpiry, OfAKeyThatNeverExpiresIsNone) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id);
  db::Result r = look_up(key.key, GetParam());
  EXPECT_EQ(auth::key_expiry(r, 0), std::nullopt);
}

// A result whose expiry column holds `text` (libpq builds results client-side too).
db::Result result_with_expiry(const char* text) {
  PGresult* r = PQmakeEmptyPGresult(nullptr, PGRES_TUPLES_OK);
  std::vector<PGresAttDesc> columns(auth::kExpiresAtColumn + 1);
  for (auto& c : columns) c = PGresAttDesc{const_cast<char*>("c"), 0, 0, 0, 25, -1, -1};
  PQsetResultAttrs(r, static_cast<int>(columns.size()), columns.data());
  PQsetvalue(r, 0, auth::kExpiresAtColumn, const_cast<char*>(text), static_cast<int>(std::strlen(text)));
  return db::Result(r);
}

TEST(KeyExpiryColumn, ThatIsNotAnIntegerCountsAsExpiredNotAsNever) {
  for (const char* text : {"2030-01-01 00:00:00+00", "01.01.2030 00:00:00 CET", "", "12x", "infinity"}) {
    SCOPED_TRACE(text);
    const auto expiry = auth::key_expiry(result_with_expiry(text), 0);
    ASSERT_TRUE(expiry.has_value());
    EXPECT_LE(*expiry, timefmt::now_micros());
  }
  EXPECT_EQ(auth::key_expiry(result_with_expiry("1577836800000000"), 0), 1577836800000000);
}

INSTANTIATE_TEST_SUITE_P(Sessions, KeyExpiry,
                         ::testing::Values("set TimeZone = 'UTC'; set DateStyle = 'ISO'",
                                           "set TimeZone = 'Asia/Kolkata'; set DateStyle = 'SQL, DMY'",
                                           "set TimeZone = 'America/St_Johns'; set DateStyle = 'German'",
                                           "set TimeZone = 'Pacific/Chatham'; set DateStyle = 'Postgres, MDY'"));

}  // namespace
}  // namespace storeapi::testing
