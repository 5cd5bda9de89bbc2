#pragma once
// The HTTP request of one webhook delivery attempt (Standard Webhooks headers).
#include "dispatch/jobs.hpp"
#include "dispatch/transfers.hpp"

#include <chrono>
#include <cstdint>
#include <optional>

namespace storeapi::dispatch {

// POST of the payload as application/json with webhook-id (the event id, the same on
// every attempt, for receivers to drop repeats), webhook-timestamp (`unix_seconds`, the
// attempt's time) and webhook-signature (signature.hpp), and with the job's trace id a
// W3C traceparent continuing the request's trace. The body is moved out of `job`.
// nullopt when no secret of the endpoint can sign: nothing unsigned is ever sent.
std::optional<HttpPost> webhook_request(DeliveryJob& job, std::int64_t unix_seconds,
                                        std::chrono::milliseconds timeout);

}  // namespace storeapi::dispatch
