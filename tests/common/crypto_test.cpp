#include "common/crypto.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

using namespace storeapi::crypto;

TEST(Crypto, Sha256MatchesKnownVector) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Crypto, HmacSha256MatchesRfc4231Case2) {
  auto mac = hmac_sha256("Jefe", "what do ya want for nothing?");
  EXPECT_EQ(hex(mac), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// Each thread reuses one HMAC context: every call must set its own key, the empty one too.
TEST(Crypto, HmacSha256TakesEachCallsKey) {
  EXPECT_EQ(hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");  // RFC 4231 case 1
  EXPECT_EQ(hex(hmac_sha256("", "")), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
  EXPECT_EQ(hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hex(hmac_sha256("", "")), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

// Each thread hashes with a context of its own: threads agree with each other.
TEST(Crypto, HashesAgreeAcrossThreads) {
  const std::string expected_sha = sha256_hex("abc");
  const std::string expected_mac = hex(hmac_sha256("Jefe", "what do ya want for nothing?"));
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (sha256_hex("abc") != expected_sha) ++mismatches;
        if (hex(hmac_sha256("Jefe", "what do ya want for nothing?")) != expected_mac) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches, 0);
}

TEST(Crypto, Base64RoundTripsAllLengths) {
  std::string data;
  for (int i = 0; i < 40; ++i) {
    auto enc = base64(data);
    EXPECT_EQ(enc.size() % 4, 0u);
    auto dec = base64_decode(enc);
    ASSERT_TRUE(dec.has_value()) << enc;
    EXPECT_EQ(*dec, data);
    auto url = base64url(data);
    EXPECT_EQ(url.find_first_of("+/="), std::string::npos);
    auto urldec = base64url_decode(url);
    ASSERT_TRUE(urldec.has_value()) << url;
    EXPECT_EQ(*urldec, data);
    data.push_back(static_cast<char>(0xF0 + i));
  }
}

TEST(Crypto, Base64KnownValues) {
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64url("\xfb\xff"), "-_8");
}

TEST(Crypto, Base64urlRejectsForeignAndNonCanonicalText) {
  EXPECT_FALSE(base64url_decode("Zm8=").has_value());   // padding is not url form
  EXPECT_FALSE(base64url_decode("ab+c").has_value());
  EXPECT_FALSE(base64url_decode("a b").has_value());
  EXPECT_FALSE(base64url_decode("A").has_value());      // impossible length
  ASSERT_TRUE(base64url_decode("Zm8").has_value());
  // "Zm9" decodes to the same bytes as "Zm8" if unused bits were ignored.
  EXPECT_FALSE(base64url_decode("Zm9").has_value());
}

TEST(Crypto, RandomAlnumHasTheRightAlphabetAndVaries) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto s = random_alnum(32);
    ASSERT_EQ(s.size(), 32u);
    for (char c : s) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c))) << c;
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(Crypto, ConstantTimeEquality) {
  auto a = sha256("x");
  auto b = sha256("x");
  auto c = sha256("y");
  EXPECT_TRUE(equal_constant_time(a, b));
  EXPECT_FALSE(equal_constant_time(a, c));
  EXPECT_FALSE(equal_constant_time(std::span(a).first(3), b));
}

TEST(Crypto, Base64urlIsBase64WithTheUrlAlphabetAndNoPadding) {
  std::string data;
  for (int i = 0; i < 40; ++i) {
    std::string expected = base64(data);  // OpenSSL's encoder
    while (!expected.empty() && expected.back() == '=') expected.pop_back();
    for (char& c : expected) c = c == '+' ? '-' : c == '/' ? '_' : c;
    EXPECT_EQ(base64url(data), expected);
    data.push_back(static_cast<char>(i * 37 + 250));
  }
}

TEST(Crypto, Base64urlDecodesIntoABufferOnlyWhenItFits) {
  std::array<std::uint8_t, 3> three{};
  EXPECT_EQ(base64url_decode("Zm9v", three), 3u);
  EXPECT_EQ(as_chars(three), "foo");
  std::array<std::uint8_t, 2> two{};
  EXPECT_FALSE(base64url_decode("Zm9v", two).has_value());
  EXPECT_EQ(base64url_decode("Zm8", two), 2u);
  EXPECT_EQ(base64url_decode("", two), 0u);
}
