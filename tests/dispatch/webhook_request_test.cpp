#include "dispatch/webhook_request.hpp"

#include "common/trace_context.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace storeapi::dispatch {
namespace {

DeliveryJob sample_job() {
  DeliveryJob job;
  job.message_id = "evt_00000000000000000000000000000001";
  job.url = "http://127.0.0.1:1/hook";
  job.secrets = {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"};
  job.payload = R"({"id":"evt_00000000000000000000000000000001"})";
  return job;
}

// The values of the request's `name` headers.
std::vector<std::string> header_values(const HttpPost& post, const std::string& name) {
  std::vector<std::string> values;
  for (const std::string& h : post.headers)
    if (h.rfind(name + ": ", 0) == 0) values.push_back(h.substr(name.size() + 2));
  return values;
}

TEST(WebhookRequest, ContinuesTheRequestsTraceInATraceparent) {
  DeliveryJob job = sample_job();
  job.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  auto post = webhook_request(job, 1795301819, std::chrono::milliseconds(1000));
  ASSERT_TRUE(post);
  const auto values = header_values(*post, "traceparent");
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(trace::trace_id_of(values[0]), "4bf92f3577b34da6a3ce929d0e0e4736") << values[0];
}

TEST(WebhookRequest, SendsNoTraceparentWithoutATraceId) {
  DeliveryJob job = sample_job();
  auto post = webhook_request(job, 1795301819, std::chrono::milliseconds(1000));
  ASSERT_TRUE(post);
  EXPECT_TRUE(header_values(*post, "traceparent").empty());
  EXPECT_EQ(header_values(*post, "webhook-id"), std::vector<std::string>{job.message_id});
}

}  // namespace
}  // namespace storeapi::dispatch
