#include "http/server_metrics.hpp"

#include <string>

namespace storeapi::http {
namespace {

metrics::Registry& registry() { return metrics::Registry::process(); }

constexpr std::string_view kUnmatched = "unmatched";

// Methods outside the known set share one label value, so a client inventing methods
// cannot create series without bound.
std::string_view method_label(std::string_view method) {
  return parse_method(method) == Method::other ? std::string_view("other") : method;
}

std::string_view rejection_reason(Rejection why) {
  switch (why) {
    case Rejection::bad_request: return "bad_request";
    case Rejection::headers_too_large: return "headers_too_large";
    case Rejection::payload_too_large: return "payload_too_large";
    case Rejection::request_timeout: return "request_timeout";
    case Rejection::too_many_connections: return "too_many_connections";
    case Rejection::internal_error: return "internal_error";
  }
  return "other";
}

}  // namespace

ServerMetrics::ServerMetrics(std::span<const RouteLabel> routes)
    : accepted(registry().counter("storeapi_http_connections_accepted_total", "Connections accepted.").with({})),
      open(registry().gauge("storeapi_http_connections_open", "Connections open now.").with({})),
      refused(registry()
                  .counter("storeapi_http_connections_refused_total",
                           "Connections refused (503 and close) at STOREAPI_MAX_CONNECTIONS or while draining.")
                  .with({})),
      deadline_closed(registry()
                          .counter("storeapi_http_connections_deadline_closed_total",
                                   "Connections closed because a request, idle or send deadline passed.")
                          .with({})),
      received_bytes(registry().counter("storeapi_http_received_bytes_total", "Bytes received from clients.").with({})),
      sent_bytes(registry().counter("storeapi_http_sent_bytes_total", "Bytes sent to clients.").with({})),
      in_flight(registry().gauge("storeapi_http_requests_in_flight", "Requests being answered now.").with({})),
      requests_(registry().counter("storeapi_http_requests_total", "Requests answered, by method, route template and status.",
                                   {"method", "route", "status"})) {
  auto& rejections = registry().counter("storeapi_http_rejections_total",
                                        "Requests refused by the HTTP layer before routing, by reason.", {"reason"});
  for (int why = 0; why <= static_cast<int>(Rejection::internal_error); ++why)  // the last one
    rejections_.push_back(&rejections.with({rejection_reason(static_cast<Rejection>(why))}));
  auto& durations = registry().histogram("storeapi_http_request_duration_seconds",
                                         "Time from a request's arrival to its answer being queued, by route template.",
                                         {"route"});
  for (const RouteLabel& r : routes) durations_.push_back(&durations.with({r.pattern}));
  durations_.push_back(&durations.with({kUnmatched}));
}

void ServerMetrics::request_done(std::string_view method, const RouteLabel* route, int status, double seconds) {
  std::size_t route_index = route ? route->index : durations_.size() - 1;
  durations_[route_index]->observe(seconds);
  std::uint32_t key = static_cast<std::uint32_t>(route_index) << 16 |
                      static_cast<std::uint32_t>(parse_method(method)) << 10 | static_cast<std::uint32_t>(status);
  metrics::Counter*& counter = by_key_[key];
  if (!counter) {
    std::string status_text = std::to_string(status);
    counter = &requests_.with({method_label(method), route ? route->pattern : kUnmatched, status_text});
  }
  counter->inc();
}

void ServerMetrics::rejected(Rejection why) { rejections_[static_cast<std::size_t>(why)]->inc(); }

}  // namespace storeapi::http
