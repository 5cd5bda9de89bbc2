// X-Forwarded-For counts only from the trusted proxy, and only its own (last) entry.
#include "http/client_address.hpp"

#include <gtest/gtest.h>

namespace storeapi::http {
namespace {

TEST(ClientAddress, WithoutATrustedProxyThePeerIsTheClient) {
  EXPECT_EQ(client_address("192.0.2.7", "", "203.0.113.9"), "192.0.2.7");
}

TEST(ClientAddress, FromTheTrustedProxyTheLastForwardedEntryIsTheClient) {
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", "203.0.113.9"), "203.0.113.9");
  // The client sent its own (forged) X-Forwarded-For; the proxy appended the real one.
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", "198.51.100.1, 203.0.113.9"), "203.0.113.9");
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", "198.51.100.1,2001:db8::5 "), "2001:db8::5");
}

TEST(ClientAddress, AnyoneElsesForwardedForIsIgnored) {
  EXPECT_EQ(client_address("192.0.2.7", "10.0.0.1", "203.0.113.9"), "192.0.2.7");
}

TEST(ClientAddress, TheProxyWithoutTheHeaderOrWithGarbageIsItself) {
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", ""), "10.0.0.1");
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", "203.0.113.9, "), "10.0.0.1");
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", "unknown"), "10.0.0.1");
  EXPECT_EQ(client_address("10.0.0.1", "10.0.0.1", "1.2.3.4 GET /forged 200"), "10.0.0.1");
}

}  // namespace
}  // namespace storeapi::http
