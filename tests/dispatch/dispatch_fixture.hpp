#pragma once
// Shared pieces of the storeapi-dispatch integration tests: an SMTP sink, and a fixture
// with a fresh migrated database and store per test (dispatchers sweep every store, so
// tests must not share a database). The dispatcher itself: support/dispatcher_process.hpp.
#include "support/dispatcher_process.hpp"
#include "support/poll.hpp"
#include "support/test_certificates.hpp"
#include "support/test_database.hpp"
#include "support/webhook_receiver.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::testing {

// tests/dispatch/smtp_sink.py on a port of its own; the first `refuse` messages get 451.
// With `tls` it offers STARTTLS with that certificate and takes mail only after it.
class SmtpSink {
 public:
  explicit SmtpSink(int refuse = 0, const std::optional<TlsIdentity>& tls = std::nullopt);
  ~SmtpSink();
  SmtpSink(const SmtpSink&) = delete;
  SmtpSink& operator=(const SmtpSink&) = delete;

  std::string url() const { return "smtp://127.0.0.1:" + std::to_string(port_); }
  // The stored messages' JSON texts, in arrival order.
  std::vector<std::string> messages() const;

 private:
  int pid_ = -1;
  int port_ = 0;
  std::string dir_;
};

struct Endpoint {
  std::string id;
  std::string secret;
};

class DispatchTest : public ::testing::Test {
 protected:
  void SetUp() override;

  // Compressed timings: retries after ~1 s and ~1 s, 1 s request timeout, 4 s lease.
  Settings settings() const;

  // `events`: comma-separated types, or "" for all.
  Endpoint add_endpoint(const std::string& url, const std::string& events = "");
  // api.emit_event in its own transaction; returns the event's uuid.
  std::string emit(const std::string& type, const std::string& object_json,
                   const std::string& previous_json = "{}");
  // api.queue_notification in its own transaction, waking the dispatchers; its id.
  std::string queue_notification(const std::string& kind, const std::string& tmpl, const std::string& recipient,
                                 const std::string& data);
  // An order.fulfillment_updated event of a made-up order (data.object an API Order).
  std::string emit_order_event(int order_number, const std::string& status = "shipped");
  // The statuses of the event's deliveries, comma-separated ("" when none).
  std::string delivery_status(const std::string& event);
  // The single value of `sql`'s single row ("" for NULL), in its own transaction.
  std::string value(const std::string& sql);

  std::unique_ptr<TestDatabase> db_;
  TestStore store_;
  simdjson::dom::parser parser_;
};

// "evt_" + the uuid's 32 hex digits: the event's payload id and webhook-id.
std::string event_name(const std::string& uuid);

}  // namespace storeapi::testing
