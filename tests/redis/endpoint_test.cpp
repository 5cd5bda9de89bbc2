// STOREAPI_REDIS_URL: redis[s]://[user[:password]@]host[:port][/db], resolved once, or
// unix://[user[:password]@]/path[?db=N]; anything else is a clear error naming the variable
// and never showing the password.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cstddef>
#include <optional>

#include "redis/endpoint.hpp"

#include "common/env.hpp"

namespace storeapi::redis {
namespace {

std::uint16_t port_of(const Endpoint& e) {
  return ntohs(reinterpret_cast<const sockaddr_in*>(&e.address)->sin_port);
}

// parse_endpoint's endpoint, or nullopt with its exception's message in `error`.
std::optional<Endpoint> parse_or_error(const std::string& url, std::string& error) {
  try {
    return parse_endpoint(url);
  } catch (const env::SettingError& e) {
    error = e.what();
    return std::nullopt;
  }
}

TEST(RedisEndpoint, ParsesHostPortAndDatabase) {
  std::string error;
  auto e = parse_or_error("redis://127.0.0.1:6390/3", error);
  ASSERT_TRUE(e) << error;
  EXPECT_EQ(port_of(*e), 6390);
  EXPECT_EQ(e->database, 3u);
  EXPECT_EQ(e->text, "127.0.0.1:6390");

  auto defaults = parse_or_error("redis://localhost", error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(port_of(*defaults), 6379);
  EXPECT_EQ(defaults->database, 0u);

  auto v6 = parse_or_error("redis://[::1]:7000/", error);
  ASSERT_TRUE(v6) << error;
  EXPECT_EQ(v6->address.ss_family, AF_INET6);
}

TEST(RedisEndpoint, ParsesASocketFileAndItsDatabase) {
  std::string error;
  auto e = parse_or_error("unix:///run/redis/redis-server.sock?db=2", error);
  ASSERT_TRUE(e) << error;
  const auto& address = reinterpret_cast<const sockaddr_un&>(e->address);
  EXPECT_EQ(address.sun_family, AF_UNIX);
  EXPECT_STREQ(address.sun_path, "/run/redis/redis-server.sock");
  EXPECT_EQ(e->length, offsetof(sockaddr_un, sun_path) + sizeof "/run/redis/redis-server.sock");
  EXPECT_EQ(e->database, 2u);
  EXPECT_EQ(e->text, "/run/redis/redis-server.sock");
  EXPECT_FALSE(is_tcp(*e));

  auto plain = parse_or_error("unix:///tmp/r.sock", error);
  ASSERT_TRUE(plain) << error;
  EXPECT_EQ(plain->database, 0u);
  EXPECT_TRUE(is_tcp(*parse_or_error("redis://127.0.0.1", error)));
}

TEST(RedisEndpoint, ParsesCredentialsAndTls) {
  std::string error;
  auto acl = parse_or_error("redis://storeapi:p@ss/w:rd@127.0.0.1:6390/2", error);
  ASSERT_TRUE(acl) << error;
  EXPECT_EQ(acl->user, "storeapi");
  EXPECT_EQ(acl->password, "p@ss/w:rd");
  EXPECT_EQ(acl->database, 2u);
  EXPECT_EQ(acl->text, "127.0.0.1:6390");
  EXPECT_FALSE(acl->tls);

  auto default_user = parse_or_error("rediss://:a%20b%25c@localhost", error);
  ASSERT_TRUE(default_user) << error;
  EXPECT_EQ(default_user->user, "");
  EXPECT_EQ(default_user->password, "a b%c");
  EXPECT_TRUE(default_user->tls);
  EXPECT_EQ(default_user->host, "localhost");
  EXPECT_EQ(port_of(*default_user), 6379);

  auto open = parse_or_error("redis://127.0.0.1", error);
  ASSERT_TRUE(open) << error;
  EXPECT_EQ(open->password, "");

  auto socket = parse_or_error("unix://storeapi:pw@/tmp/r@1.sock?db=1", error);
  ASSERT_TRUE(socket) << error;
  EXPECT_EQ(socket->user, "storeapi");
  EXPECT_EQ(socket->password, "pw");
  EXPECT_EQ(socket->text, "/tmp/r@1.sock");
  EXPECT_EQ(socket->database, 1u);
  auto at_in_path = parse_or_error("unix:///tmp/r@1.sock", error);
  ASSERT_TRUE(at_in_path) << error;
  EXPECT_EQ(at_in_path->text, "/tmp/r@1.sock");
  EXPECT_EQ(at_in_path->password, "");
}

TEST(RedisEndpoint, SignsInAndSelectsFirst) {
  std::string error;
  std::string out;
  EXPECT_EQ(append_session_setup(out, *parse_or_error("redis://127.0.0.1", error)), 0u);
  EXPECT_EQ(out, "");
  EXPECT_EQ(append_session_setup(out, *parse_or_error("redis://:pw@127.0.0.1/0", error)), 1u);
  EXPECT_EQ(out, "*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n");
  out.clear();
  EXPECT_EQ(append_session_setup(out, *parse_or_error("redis://u:pw@127.0.0.1/3", error)), 2u);
  EXPECT_EQ(out, "*3\r\n$4\r\nAUTH\r\n$1\r\nu\r\n$2\r\npw\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n");
}

TEST(RedisEndpoint, ErrorsMaskThePassword) {
  std::string error;
  EXPECT_FALSE(parse_or_error("redis://storeapi:hunter2@127.0.0.1:99999", error));
  EXPECT_NE(error.find("'redis://storeapi:***@127.0.0.1:99999'"), std::string::npos) << error;
  EXPECT_FALSE(parse_or_error("unix://:hunter2@/tmp/r.sock?db=99", error));
  EXPECT_NE(error.find("'unix://:***@/tmp/r.sock?db=99'"), std::string::npos) << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  // A password with its ':' forgotten reads as a user without one: refused, and not shown.
  // Seen failing: the message repeated the whole URL, password included.
  EXPECT_FALSE(parse_or_error("redis://hunter2@127.0.0.1:6392", error));
  EXPECT_NE(error.find("'redis://***@127.0.0.1:6392'"), std::string::npos) << error;
  EXPECT_NE(error.find(":PASSWORD@"), std::string::npos) << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
}

TEST(RedisEndpoint, RefusesWhatItCannotUse) {
  const std::string too_long = "unix:///" + std::string(sizeof(sockaddr_un::sun_path), 'x');
  for (const std::string url : {"http://127.0.0.1:6379", "127.0.0.1:6379", "redis://", "redis://:6379",
                                "redis://127.0.0.1:0", "redis://127.0.0.1:99999", "redis://127.0.0.1:x",
                                "redis://127.0.0.1/16", "redis://user@127.0.0.1", "redis://:p%zz@127.0.0.1", "redis://[::1", "unix://",
                                "unix://relative.sock", "unix:///tmp/r.sock?db=16", "unix:///tmp/r.sock?database=1",
                                "unix:///tmp/r.sock?db=", too_long.c_str()}) {
    std::string error;
    EXPECT_FALSE(parse_or_error(url, error)) << url;
    EXPECT_TRUE(error.starts_with("STOREAPI_REDIS_URL: ")) << url << ": " << error;
  }
  std::string error;
  EXPECT_FALSE(parse_or_error("redis://no-such-host.invalid", error));
  EXPECT_NE(error.find("cannot resolve"), std::string::npos) << error;
}

}  // namespace
}  // namespace storeapi::redis
