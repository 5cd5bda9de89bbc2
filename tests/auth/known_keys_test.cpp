// The node's set of key hashes (auth/known_keys.hpp): a prefix is the hash's first 8
// bytes in the hex text's order; the set answers "does not exist" only while complete
// and listening; announced hashes are held at once; a new shared array drops the core's
// own copies of what it holds and never loses one it does not; a "*" makes it incomplete.
// Each test fails without the line it names: may_exist's completeness check
// (IncompleteOrNotListeningAlwaysMayExist), heard's insertion (AnnouncedKeyIsHeldAtOnce),
// install's erase_if (InstallKeepsOwnHashesTheArrayLacks), heard("*")
// (AStarMakesItIncomplete).
#include "auth/known_keys.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

namespace storeapi::auth {
namespace {

crypto::Sha256 hash_of(const std::string& key) { return crypto::sha256(key); }
std::string announce(const std::string& key) { return "key:" + crypto::hex(hash_of(key)); }

SharedKeyPrefixes array_of(std::initializer_list<std::string> keys) {
  std::vector<KeyPrefix> prefixes;
  for (const auto& k : keys) prefixes.push_back(key_prefix(hash_of(k)));
  return std::make_shared<const KeyPrefixes>(merge_prefixes({}, prefixes));
}

TEST(KeyPrefix, IsTheFirstEightBytesInTheHexOrder) {
  const crypto::Sha256 h = hash_of("sk_live_example");
  const std::string hex = crypto::hex(h);
  EXPECT_EQ(key_prefix(h), std::stoull(hex.substr(0, 16), nullptr, 16));
  EXPECT_EQ(parse_key_prefix(hex), key_prefix(h));
  EXPECT_EQ(parse_key_prefix(hex.substr(0, 16)), key_prefix(h));
  EXPECT_EQ(parse_key_prefix("ffffffffffffffff"), ~KeyPrefix{0});
  EXPECT_EQ(parse_key_prefix("0000000000000001"), KeyPrefix{1});
  for (const char* bad : {"", "0123", "0123456789abcdeF", "0123456789abcdeg", "xyz"})
    EXPECT_FALSE(parse_key_prefix(bad)) << bad;
}

TEST(KeyPrefix, MergeSortsAndDropsDuplicates) {
  EXPECT_EQ(merge_prefixes({1, 5, 9}, {7, 1, 3, 9, 3}), (KeyPrefixes{1, 3, 5, 7, 9}));
  EXPECT_EQ(merge_prefixes({}, {}), KeyPrefixes{});
}

TEST(KnownKeys, CompleteSetAnswersFromTheArray) {
  KnownKeys known;
  known.install(array_of({"a", "b"}), true);
  EXPECT_TRUE(known.may_exist(hash_of("a")));
  EXPECT_TRUE(known.may_exist(hash_of("b")));
  EXPECT_FALSE(known.may_exist(hash_of("c")));
}

TEST(KnownKeys, IncompleteOrNotListeningAlwaysMayExist) {
  std::atomic<bool> listening = true;
  KnownKeys known([&] { return listening.load(); });
  EXPECT_TRUE(known.may_exist(hash_of("c"))) << "nothing loaded yet";
  known.install(array_of({"a"}), false);
  EXPECT_TRUE(known.may_exist(hash_of("c"))) << "loaded, but not since the last LISTEN began";
  known.install(array_of({"a"}), true);
  EXPECT_FALSE(known.may_exist(hash_of("c")));
  listening = false;
  EXPECT_TRUE(known.may_exist(hash_of("c"))) << "creations go unheard while the LISTEN is down";
}

TEST(KnownKeys, AnnouncedKeyIsHeldAtOnce) {
  KnownKeys known;
  known.install(array_of({"a"}), true);
  known.heard(announce("new"));
  known.heard(announce("new"));  // revoked later: announced again
  EXPECT_TRUE(known.may_exist(hash_of("new")));
  EXPECT_EQ(known.own(), 1u);
  known.heard(announce("a"));  // held by the array already
  EXPECT_EQ(known.own(), 1u);
  for (const char* ignored : {"key:", "key:xyz", "store:7c9e6679-7425-40de-944b-e07fc1f90ae7", ""})
    known.heard(ignored);
  EXPECT_EQ(known.own(), 1u);
  EXPECT_TRUE(known.complete());
}

TEST(KnownKeys, InstallKeepsOwnHashesTheArrayLacks) {
  KnownKeys known;
  known.install(array_of({"a"}), true);
  known.heard(announce("in the next array"));
  known.heard(announce("announced after that array was built"));
  known.install(array_of({"a", "in the next array"}), true);
  EXPECT_EQ(known.own(), 1u);
  EXPECT_TRUE(known.may_exist(hash_of("in the next array")));
  EXPECT_TRUE(known.may_exist(hash_of("announced after that array was built")));
  EXPECT_FALSE(known.may_exist(hash_of("c")));
}

TEST(KnownKeys, AStarMakesItIncomplete) {
  KnownKeys known;
  known.install(array_of({"a"}), true);
  known.heard("*");
  EXPECT_FALSE(known.complete());
  EXPECT_TRUE(known.may_exist(hash_of("missed while away")));
  known.install(array_of({"a", "missed while away"}), true);
  EXPECT_TRUE(known.complete());
  EXPECT_FALSE(known.may_exist(hash_of("c")));
}

}  // namespace
}  // namespace storeapi::auth
