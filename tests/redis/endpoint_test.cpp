// STOREAPI_REDIS_URL: redis://host[:port][/db], resolved once, or unix:///path[?db=N];
// anything else is a clear error naming the variable.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cstddef>

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

TEST(RedisEndpoint, RefusesWhatItCannotUse) {
  const std::string too_long = "unix:///" + std::string(sizeof(sockaddr_un::sun_path), 'x');
  for (const std::string url : {"http://127.0.0.1:6379", "127.0.0.1:6379", "redis://", "redis://:6379",
                                "redis://127.0.0.1:0", "redis://127.0.0.1:99999", "redis://127.0.0.1:x",
                                "redis://127.0.0.1/16", "redis://user:pw@127.0.0.1", "redis://[::1", "unix://",
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
