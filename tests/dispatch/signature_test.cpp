#include "dispatch/signature.hpp"
#include "dispatch/webhook_request.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace storeapi::dispatch {
namespace {

// The example of the Standard Webhooks specification and its reference libraries.
constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr const char* kId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr std::int64_t kTimestamp = 1614265330;
constexpr const char* kBody = R"({"test": 2432232314})";
constexpr const char* kSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

TEST(Signature, MatchesTheStandardWebhooksExample) {
  EXPECT_EQ(sign(kSecret, kId, kTimestamp, kBody), kSignature);
  EXPECT_NE(sign(kSecret, kId, kTimestamp + 1, kBody), kSignature);
  EXPECT_NE(sign(kSecret, kId, kTimestamp, R"({"test": 2432232315})"), kSignature);
}

TEST(Signature, RejectsSecretsThatAreNotWhsecBase64) {
  EXPECT_FALSE(sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", kId, kTimestamp, kBody));
  EXPECT_FALSE(sign("whsec_not base64!", kId, kTimestamp, kBody));
  EXPECT_FALSE(sign("whsec_", kId, kTimestamp, kBody));
}

// The second secret's signature is a known answer computed apart from sign():
//   printf '%s' 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' |
//     openssl dgst -sha256 -mac HMAC -macopt hexkey:7365636f6e6420736563726574206b6579 -binary | base64
// (the key is "second secret key", the base64 after whsec_; the same command with the
// example's key gives the specification's own signature above).
TEST(Signature, HeaderCarriesOneSignaturePerUsableSecret) {
  std::vector<std::string> secrets = {kSecret, "whsec_broken!", "whsec_c2Vjb25kIHNlY3JldCBrZXk="};
  auto header = signature_header(secrets, kId, kTimestamp, kBody);
  ASSERT_TRUE(header);
  EXPECT_EQ(*header, std::string(kSignature) + " v1,7LTx9fuUnhsRwi8+YMey3A9kvS/3eHU4TQhO9DLK1Xk=");
  std::vector<std::string> unusable = {"whsec_broken!"};
  EXPECT_FALSE(signature_header(unusable, kId, kTimestamp, kBody));
}

TEST(WebhookRequest, HasTheStandardWebhooksHeadersAndTheBodyAsIs) {
  DeliveryJob job;
  job.url = "https://erp.example/hooks";
  job.message_id = kId;
  job.secrets = {kSecret};
  job.payload = kBody;
  auto post = webhook_request(job, kTimestamp, std::chrono::milliseconds(10'000));
  ASSERT_TRUE(post);
  EXPECT_EQ(post->url, "https://erp.example/hooks");
  EXPECT_EQ(post->body, kBody);
  EXPECT_EQ(post->timeout, std::chrono::milliseconds(10'000));
  for (std::string header : {std::string("Content-Type: application/json"), std::string("webhook-id: ") + kId,
                             std::string("webhook-timestamp: 1614265330"),
                             std::string("webhook-signature: ") + kSignature})
    EXPECT_NE(std::find(post->headers.begin(), post->headers.end(), header), post->headers.end()) << header;
}

TEST(WebhookRequest, NothingIsSentUnsigned) {
  DeliveryJob job;
  job.secrets = {"whsec_???"};
  job.payload = kBody;
  EXPECT_FALSE(webhook_request(job, kTimestamp, std::chrono::milliseconds(1000)));
}

}  // namespace
}  // namespace storeapi::dispatch
