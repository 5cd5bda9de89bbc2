// storeapi-dispatch load benchmark: a local receiver (tests/support/webhook_receiver),
// the real build/storeapi-dispatch, and two measurements (bench/load/dispatch.sh runs it):
//   1. throughput: N events committed at once, time until the receiver has them all;
//   2. lag: events committed one per transaction at a steady rate, each followed by the
//      NOTIFY that wakes the dispatcher (as the server sends it after a write), commit-to-
//      arrival lag per event.
// Prints a Markdown table. Needs STOREAPI_DATABASE_URL (a migrated, disposable database)
// and STOREAPI_BUILD_DIR.
#include "admin/base/database.hpp"
#include "admin/stores/stores.hpp"
#include "admin/webhooks/webhooks.hpp"
#include "common/crypto.hpp"
#include "support/dispatcher_process.hpp"
#include "support/webhook_receiver.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace storeapi;
using Clock = std::chrono::steady_clock;

struct Options {
  long events = 20'000;       // throughput run
  long rate = 200;            // lag run: events per second
  long seconds = 30;          // lag run: duration
  long concurrency = 64;      // STOREAPI_DISPATCH_CONCURRENCY
};

long flag(int argc, char** argv, const std::string& name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == "--" + name) return std::stol(argv[i + 1]);
  return fallback;
}

std::int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What the server does after a write committed outbox rows (src/api/dispatcher_wake.hpp):
// the NOTIFY from a transaction of its own, since api.emit_event only inserts the row.
void wake_dispatchers(pqxx::connection& conn) {
  pqxx::nontransaction work(conn);
  work.exec("select api.wake_dispatchers()");
}

// A realistic order as data.object (about 1.3 KB of JSON), numbered by $2.
constexpr const char* kEmit = R"SQL(
select 'evt_' || replace(api.emit_event($1, 'order.fulfillment_updated',
  jsonb_build_object('id', gen_random_uuid(), 'object', 'order', 'order_number', n,
    'status', 'completed', 'fulfillment_status', 'shipped', 'channel', 'storefront', 'currency', 'EUR',
    'subtotal', '149.00', 'shipping_total', '4.90', 'tax_total', '0.00', 'total', '153.90',
    'payment_method', 'card', 'payment_gateway', 'stripe', 'paid_at', '2026-11-01T10:00:00.000Z',
    'tracking_number', 'TRK' || n, 'tracking_carrier', 'DHL',
    'customer', jsonb_build_object('id', gen_random_uuid(), 'name', 'Ann Lee', 'email', 'ann@example.com',
                                   'phone', '+49 30 1234567'),
    'billing_address', jsonb_build_object('first_name', 'Ann', 'last_name', 'Lee', 'phone', '+49 30 1234567',
      'line1', 'Main Street 1', 'line2', null, 'city', 'Berlin', 'state', 'Berlin', 'postal_code', '10115',
      'country', 'Germany', 'country_code', 'DE'),
    'shipping_address', jsonb_build_object('first_name', 'Ann', 'last_name', 'Lee', 'phone', '+49 30 1234567',
      'line1', 'Main Street 1', 'line2', null, 'city', 'Berlin', 'state', 'Berlin', 'postal_code', '10115',
      'country', 'Germany', 'country_code', 'DE'),
    'line_items', jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'product_id', gen_random_uuid(),
      'product_name', 'Stoneware Mug', 'variant_id', gen_random_uuid(), 'variant_title', 'Blue',
      'quantity', 2, 'unit_price', '74.50', 'unit_discount', '0.00', 'total', '149.00')),
    'created_at', '2026-11-01T10:00:00.000Z', 'updated_at', '2026-11-21T20:39:02.123Z')::text,
  '{"fulfillment_status":"processing"}')::text, '-', '')
from generate_series($2::int, $3::int) as n
)SQL";

struct Lag {
  double p50, p90, p99, max;
};

double percentile(std::vector<double>& sorted, double p) {
  return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p * static_cast<double>(sorted.size())))];
}

// Waits until the receiver has `n` requests (or 120 s pass); false on timeout.
bool await_requests(const testing::WebhookReceiver& receiver, std::size_t n) {
  return receiver.wait_for_count(n, std::chrono::seconds(120));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.events = flag(argc, argv, "events", o.events);
  o.rate = flag(argc, argv, "rate", o.rate);
  o.seconds = flag(argc, argv, "seconds", o.seconds);
  o.concurrency = flag(argc, argv, "concurrency", o.concurrency);
  const char* url = std::getenv("STOREAPI_DATABASE_URL");
  if (!url) {
    std::fprintf(stderr, "dispatch-bench: set STOREAPI_DATABASE_URL (bench/load/dispatch.sh does)\n");
    return 2;
  }

  auto conn = admin::connect(url);
  std::string store;
  {
    pqxx::work work(*conn);
    admin::NewStore s;
    s.name = "Bench";
    s.slug = "bench-" + crypto::sha256_hex(crypto::random_alnum(16)).substr(0, 12);
    s.currency = "EUR";
    s.plan = "advanced";
    s.owner_email = "owner@bench.example";
    store = admin::create_store(work, s);
    work.commit();
  }
  testing::WebhookReceiver receiver;
  {
    pqxx::work work(*conn);
    admin::add_webhook(work, store, receiver.url(), std::nullopt, testing::loopback_destinations());
    work.commit();
  }
  conn->prepare("emit", kEmit);
  testing::DispatcherProcess dispatcher({{"STOREAPI_DATABASE_URL", url},
                                         {"STOREAPI_DISPATCH_CONCURRENCY", std::to_string(o.concurrency)}});

  // 1. Throughput.
  auto t0 = Clock::now();
  {
    pqxx::work work(*conn);
    work.exec_prepared("emit", store, 1, o.events);
    work.commit();
  }
  auto committed = Clock::now();
  wake_dispatchers(*conn);
  if (!await_requests(receiver, static_cast<std::size_t>(o.events))) {
    std::fprintf(stderr, "dispatch-bench: only %zu of %ld events arrived\n%s", receiver.count(), o.events,
                 dispatcher.stderr_text().c_str());
    return 1;
  }
  auto delivered = Clock::now();
  double insert_s = std::chrono::duration<double>(committed - t0).count();
  double deliver_s = std::chrono::duration<double>(delivered - committed).count();

  // 2. Lag at a steady rate, one transaction (and NOTIFY) per event.
  std::size_t before = receiver.count();
  long total = o.rate * o.seconds;
  std::map<std::string, std::int64_t> committed_at;
  auto start = Clock::now();
  for (long i = 0; i < total; ++i) {
    std::this_thread::sleep_until(start + std::chrono::microseconds(i * 1'000'000 / o.rate));
    pqxx::work work(*conn);
    std::string id = work.exec_prepared1("emit", store, o.events + 1 + i, o.events + 1 + i)[0].c_str();
    work.commit();
    committed_at[id] = now_micros();
    wake_dispatchers(*conn);
  }
  double achieved = static_cast<double>(total) / std::chrono::duration<double>(Clock::now() - start).count();
  if (!await_requests(receiver, before + static_cast<std::size_t>(total))) {
    std::fprintf(stderr, "dispatch-bench: lag run: only %zu of %ld events arrived\n", receiver.count() - before,
                 total);
    return 1;
  }
  std::vector<double> lags;
  std::size_t repeats = 0;
  for (const auto& r : receiver.requests()) {
    auto it = committed_at.find(r.header("webhook-id"));
    if (it == committed_at.end()) continue;
    if (it->second < 0) ++repeats;
    lags.push_back(static_cast<double>(r.received_at_micros - it->second) / 1000.0);
    it->second = -1;  // a second arrival of one event would be a repeat
  }
  std::sort(lags.begin(), lags.end());
  Lag lag{percentile(lags, 0.50), percentile(lags, 0.90), percentile(lags, 0.99), lags.back()};
  dispatcher.signal(SIGTERM);
  const int exit_code = dispatcher.wait_exit(std::chrono::seconds(30)).value_or(-1);  // -1: still running

  std::printf("| measurement | value |\n|---|---|\n");
  std::printf("| throughput: events committed in one transaction | %ld (insert %.2f s) |\n", o.events, insert_s);
  std::printf("| throughput: commit to last delivery | %.2f s |\n", deliver_s);
  std::printf("| **throughput: events delivered per second** | **%.0f** |\n", static_cast<double>(o.events) / deliver_s);
  std::printf("| lag run: events, one write transaction each | %ld at %.0f/s for %ld s |\n", total, achieved, o.seconds);
  std::printf("| lag: commit to delivery p50 / p90 | %.2f ms / %.2f ms |\n", lag.p50, lag.p90);
  std::printf("| **lag: commit to delivery p99** | **%.2f ms** |\n", lag.p99);
  std::printf("| lag: max | %.2f ms |\n", lag.max);
  std::printf("| repeated deliveries | %zu |\n", repeats);
  std::printf("| dispatcher concurrency / exit code | %ld / %d |\n", o.concurrency, exit_code);
  return exit_code == 0 && repeats == 0 ? 0 : 1;
}
