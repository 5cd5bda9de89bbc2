#include "dispatch/webhook_request.hpp"

#include "common/trace_context.hpp"
#include "dispatch/signature.hpp"

#include <string>

namespace storeapi::dispatch {

std::optional<HttpPost> webhook_request(DeliveryJob& job, std::int64_t unix_seconds,
                                        std::chrono::milliseconds timeout) {
  auto signature = signature_header(job.secrets, job.message_id, unix_seconds, job.payload);
  if (!signature) return std::nullopt;
  HttpPost post;
  post.url = job.url;
  post.timeout = timeout;
  post.headers = {
      "Content-Type: application/json",
      "User-Agent: storeapi-webhooks/1",
      "webhook-id: " + job.message_id,
      "webhook-timestamp: " + std::to_string(unix_seconds),
      "webhook-signature: " + *signature,
  };
  if (!job.trace_id.empty()) post.headers.push_back("traceparent: " + trace::child_traceparent(job.trace_id));
  post.body = std::move(job.payload);
  return post;
}

}  // namespace storeapi::dispatch
