// Router matching and query parsing of typical requests.
#include "http/query.hpp"
#include "api/routing/router.hpp"

#include <benchmark/benchmark.h>

using namespace storeapi::api;

namespace {

void BM_MatchOrderGet(benchmark::State& state) {
  for (auto _ : state) {
    auto match = storeapi::api::match(Method::get, "/v1/orders/0b5e7a3c-1f2d-4c8e-9a6b-3d2f1e0c9b8a");
    benchmark::DoNotOptimize(match);
  }
}
BENCHMARK(BM_MatchOrderGet);

// The last route of the table with the most segments: the matcher's worst found case.
void BM_MatchVariantStock(benchmark::State& state) {
  for (auto _ : state) {
    auto match = storeapi::api::match(
        Method::post,
        "/v1/products/0b5e7a3c-1f2d-4c8e-9a6b-3d2f1e0c9b8a/variants/7f3e2d1c-0b9a-4887-a665-544332211000/stock");
    benchmark::DoNotOptimize(match);
  }
}
BENCHMARK(BM_MatchVariantStock);

void BM_MatchNotFound(benchmark::State& state) {
  for (auto _ : state) {
    auto match = storeapi::api::match(Method::get, "/v1/orders/0b5e7a3c-1f2d-4c8e-9a6b-3d2f1e0c9b8a/nope");
    benchmark::DoNotOptimize(match);
  }
}
BENCHMARK(BM_MatchNotFound);

void parse_query(benchmark::State& state, std::string_view raw) {
  storeapi::http::Query query;
  for (auto _ : state) {
    auto parsed = query.parse(raw);
    benchmark::DoNotOptimize(parsed);
    benchmark::DoNotOptimize(query.params().data());
  }
}

void BM_ParseListQuery(benchmark::State& state) {
  parse_query(state, "limit=50&order=asc&updated_after=2026-11-21T20:39:02.123Z&status=captured");
}
BENCHMARK(BM_ParseListQuery);

void BM_ParseEscapedQuery(benchmark::State& state) {
  parse_query(state, "email=a%2Bb%40example.com&created_after=2026-11-21T20%3A39%3A02%2B01%3A00&limit=10");
}
BENCHMARK(BM_ParseEscapedQuery);

}  // namespace
