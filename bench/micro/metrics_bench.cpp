// The cost of recording a metric on the request path (metrics/cells.hpp): a counter
// increment and a histogram observation from a core's thread (single-writer store) and
// from an unbound thread (shared block, fetch_add); and a whole scrape's rendering.
#include <benchmark/benchmark.h>

#include "api/routing/router.hpp"
#include "http/server_metrics.hpp"
#include "metrics/registry.hpp"

namespace storeapi::metrics {
namespace {

void BM_CounterIncOnACore(benchmark::State& state) {
  Registry r(1);
  Counter& c = r.counter("c_total", "c").with({});
  bind_this_thread(0);
  for (auto _ : state) c.inc();
  bind_this_thread(kNoCore);
  benchmark::DoNotOptimize(c.value());
}
BENCHMARK(BM_CounterIncOnACore);

void BM_CounterIncShared(benchmark::State& state) {
  Registry r(1);
  Counter& c = r.counter("c_total", "c").with({});
  for (auto _ : state) c.inc();
  benchmark::DoNotOptimize(c.value());
}
BENCHMARK(BM_CounterIncShared);

void BM_HistogramObserveOnACore(benchmark::State& state) {
  Registry r(1);
  Histogram& h = r.histogram("h_seconds", "h").with({});
  bind_this_thread(0);
  double v = 0.0001;
  for (auto _ : state) {
    h.observe(v);
    v = v < 1 ? v * 1.7 : 0.0001;
  }
  bind_this_thread(kNoCore);
  benchmark::DoNotOptimize(h.count());
}
BENCHMARK(BM_HistogramObserveOnACore);

// What the HTTP server records per request: duration by route, the (method, route,
// status) counter (a per-core hash lookup), in-flight up and down.
void BM_ServerRequestDone(benchmark::State& state) {
  http::ServerMetrics m(api::route_labels());
  const http::RouteLabel* route = &api::route_label(api::RouteId::store_get);
  for (auto _ : state) {
    m.in_flight.inc();
    m.in_flight.dec();
    m.request_done("GET", route, 200, 0.0003);
  }
}
BENCHMARK(BM_ServerRequestDone);

void BM_ExposeServerFamilies(benchmark::State& state) {
  http::ServerMetrics m(api::route_labels());
  for (const http::RouteLabel& r : api::route_labels()) m.request_done("GET", &r, 200, 0.001);
  for (auto _ : state) benchmark::DoNotOptimize(Registry::process().expose());
}
BENCHMARK(BM_ExposeServerFamilies);

}  // namespace
}  // namespace storeapi::metrics
