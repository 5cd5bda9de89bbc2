// STOREAPI_REDIS_URL: redis://host[:port][/db], resolved once; anything else is a clear
// error naming the variable.
#include <gtest/gtest.h>
#include <netinet/in.h>

#include "redis/endpoint.hpp"

namespace storeapi::redis {
namespace {

std::uint16_t port_of(const Endpoint& e) {
  return ntohs(reinterpret_cast<const sockaddr_in*>(&e.address)->sin_port);
}

TEST(RedisEndpoint, ParsesHostPortAndDatabase) {
  std::string error;
  auto e = parse_endpoint("redis://127.0.0.1:6390/3", error);
  ASSERT_TRUE(e) << error;
  EXPECT_EQ(port_of(*e), 6390);
  EXPECT_EQ(e->database, 3u);
  EXPECT_EQ(e->text, "127.0.0.1:6390");

  auto defaults = parse_endpoint("redis://localhost", error);
  ASSERT_TRUE(defaults) << error;
  EXPECT_EQ(port_of(*defaults), 6379);
  EXPECT_EQ(defaults->database, 0u);

  auto v6 = parse_endpoint("redis://[::1]:7000/", error);
  ASSERT_TRUE(v6) << error;
  EXPECT_EQ(v6->address.ss_family, AF_INET6);
}

TEST(RedisEndpoint, RefusesWhatItCannotUse) {
  for (const char* url : {"http://127.0.0.1:6379", "127.0.0.1:6379", "redis://", "redis://:6379",
                          "redis://127.0.0.1:0", "redis://127.0.0.1:99999", "redis://127.0.0.1:x",
                          "redis://127.0.0.1/16", "redis://user:pw@127.0.0.1", "redis://[::1"}) {
    std::string error;
    EXPECT_FALSE(parse_endpoint(url, error)) << url;
    EXPECT_TRUE(error.starts_with("STOREAPI_REDIS_URL: ")) << url << ": " << error;
  }
  std::string error;
  EXPECT_FALSE(parse_endpoint("redis://no-such-host.invalid", error));
  EXPECT_NE(error.find("cannot resolve"), std::string::npos) << error;
}

}  // namespace
}  // namespace storeapi::redis
