#include "dispatch/outcomes_json.hpp"

#include "json/writer.hpp"

namespace storeapi::dispatch {
namespace {

void optional_millis(json::Writer& w, const std::optional<std::chrono::milliseconds>& d) {
  if (d) w.integer(d->count());
  else w.null();
}

void optional_text(json::Writer& w, const std::optional<std::string>& text) {
  if (text) w.string(*text);
  else w.null();
}

}  // namespace

std::string outcomes_json(std::span<const DeliveryOutcome> outcomes) {
  std::string out;
  json::Writer w(out);
  w.begin_array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const DeliveryOutcome& d = outcomes[i];
    w.begin_object().key("i").integer(static_cast<std::int64_t>(i));
    w.key("store_id").string(d.store_id).key("delivery_id").string(d.delivery_id);
    w.key("attempt").integer(d.attempt).key("attempted_at").string(timefmt::format_ms_utc(d.attempted_at));
    w.key("status");
    if (d.status) w.integer(*d.status);
    else w.null();
    w.key("latency_ms").integer(d.latency_ms);
    w.key("response");
    optional_text(w, d.response);
    w.key("error");
    optional_text(w, d.error);
    w.key("retry_ms");
    optional_millis(w, d.retry_in);
    w.key("event_created_at").string(timefmt::format_ms_utc(d.event_created_at));
    w.end_object();
  }
  w.end_array();
  return out;
}

std::string outcomes_json(std::span<const NotificationOutcome> outcomes) {
  std::string out;
  json::Writer w(out);
  w.begin_array();
  for (const NotificationOutcome& n : outcomes) {
    w.begin_object().key("store_id").string(n.store_id).key("id").string(n.id);
    w.key("attempt").integer(n.attempt).key("sent").boolean(n.sent).key("error").string(n.error);
    w.key("retry_ms");
    optional_millis(w, n.retry_in);
    w.key("created_at").string(timefmt::format_ms_utc(n.created_at));
    w.end_object();
  }
  w.end_array();
  return out;
}

}  // namespace storeapi::dispatch
