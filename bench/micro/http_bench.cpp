// The HTTP layer's per-request CPU cost without the network: RequestReader::next on a
// request as wrk sends it, then serialize() of a small JSON response, as a connection
// does for each keep-alive request.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "http/request_reader.hpp"
#include "http/response.hpp"

namespace storeapi::http {
namespace {

constexpr std::string_view kWrkRequest = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
constexpr std::string_view kApiRequest =
    "GET /v1/orders?limit=25&order=desc&updated_after=2026-11-21T20:39:02.123Z HTTP/1.1\r\n"
    "Host: api.example.com\r\nUser-Agent: erp-sync/4.2\r\nAccept: application/json\r\n"
    "Authorization: Bearer sk_live_0123456789abcdefghijABCDEFGHIJ01\r\nAccept-Encoding: gzip\r\n\r\n";

// Hands `bytes` to the reader as a connection would (one receive, or more where the
// buffer's free space is shorter) and takes the request out.
void parse(RequestReader& reader, std::string_view bytes, Request& req) {
  for (;;) {
    std::span<char> space = reader.recv_space();
    std::size_t n = std::min(space.size(), bytes.size());
    std::memcpy(space.data(), bytes.data(), n);
    reader.commit(n);
    bytes.remove_prefix(n);
    RequestReader::Result r = reader.next(req);
    if (r == RequestReader::Result::request) return;
    if (r == RequestReader::Result::error || bytes.empty()) std::abort();
  }
}

void BM_Parse(benchmark::State& state, std::string_view bytes) {
  RequestReader reader;
  Request req;
  for (auto _ : state) {
    parse(reader, bytes, req);
    benchmark::DoNotOptimize(req.path.data());
    if (reader.next(req) != RequestReader::Result::need_more) std::abort();  // releases the bytes
  }
}

void BM_Serialize(benchmark::State& state) {
  Response res;
  res.body = "{\"status\":\"ok\"}";
  std::string out;
  std::string_view id = next_request_id();
  for (auto _ : state) {
    serialize(res, {id}, out);
    benchmark::DoNotOptimize(out.data());
    out.clear();
  }
}

// What a connection does per keep-alive request: parse, fresh id, respond.
void BM_ParseAndRespond(benchmark::State& state, std::string_view bytes) {
  RequestReader reader;
  Request req;
  Response res;
  std::string out;
  for (auto _ : state) {
    parse(reader, bytes, req);
    res.reset();
    res.body = "{\"status\":\"ok\"}";
    serialize(res, {next_request_id(), req.method == Method::head, req.keep_alive}, out);
    benchmark::DoNotOptimize(out.data());
    out.clear();
    if (reader.next(req) != RequestReader::Result::need_more) std::abort();
  }
}

BENCHMARK_CAPTURE(BM_Parse, wrk_get, kWrkRequest);
BENCHMARK_CAPTURE(BM_Parse, api_get, kApiRequest);
BENCHMARK(BM_Serialize);
BENCHMARK_CAPTURE(BM_ParseAndRespond, wrk_get, kWrkRequest);
BENCHMARK_CAPTURE(BM_ParseAndRespond, api_get, kApiRequest);

}  // namespace
}  // namespace storeapi::http

