// X-Forwarded-For counts only from the trusted proxy, and only its own (last) entry.
#include "http/client_address.hpp"

#include <gtest/gtest.h>

namespace storeapi::http {
namespace {

TEST(ClientAddress, PeerHostDropsThePort) {
  EXPECT_EQ(peer_host("192.0.2.7:5000"), "192.0.2.7");
  EXPECT_EQ(peer_host("[2001:db8::5]:443"), "2001:db8::5");
  EXPECT_EQ(peer_host(""), "");
}

TEST(ClientAddress, WithoutATrustedProxyThePeerIsTheClient) {
  EXPECT_FALSE(from_trusted_proxy("192.0.2.7:5000", ""));
  EXPECT_EQ(client_address("192.0.2.7:5000", "", "203.0.113.9"), "192.0.2.7:5000");
}

TEST(ClientAddress, FromTheTrustedProxyTheLastForwardedEntryIsTheClient) {
  EXPECT_TRUE(from_trusted_proxy("10.0.0.1:5000", "10.0.0.1"));
  EXPECT_TRUE(from_trusted_proxy("[2001:db8::1]:5000", "2001:db8::1"));
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", "203.0.113.9"), "203.0.113.9");
  // The client sent its own (forged) X-Forwarded-For; the proxy appended the real one.
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", "198.51.100.1, 203.0.113.9"), "203.0.113.9");
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", "198.51.100.1,2001:db8::5 "), "2001:db8::5");
}

TEST(ClientAddress, AnyoneElsesForwardedForIsIgnored) {
  EXPECT_FALSE(from_trusted_proxy("10.0.0.10:5000", "10.0.0.1"));
  EXPECT_EQ(client_address("192.0.2.7:5000", "10.0.0.1", "203.0.113.9"), "192.0.2.7:5000");
}

TEST(ClientAddress, TheProxyWithoutTheHeaderOrWithGarbageIsItself) {
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", ""), "10.0.0.1:5000");
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", "203.0.113.9, "), "10.0.0.1:5000");
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", "unknown"), "10.0.0.1:5000");
  EXPECT_EQ(client_address("10.0.0.1:5000", "10.0.0.1", "1.2.3.4\",\"forged\":\"x"), "10.0.0.1:5000");
}

}  // namespace
}  // namespace storeapi::http
