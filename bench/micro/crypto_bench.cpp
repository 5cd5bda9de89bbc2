// The hashing every authenticated request does (SHA-256 of the presented key, to find it
// in the key cache) and the HMAC of each list cursor. Threaded runs show whether cores
// share anything (a lock, a reference count) on the way.
#include "common/crypto.hpp"

#include <benchmark/benchmark.h>

namespace {

void BM_Sha256Key(benchmark::State& state) {
  const std::string key = "sk_live_kJ83XShDBcpR2tfqDX7bdNNvh69qX8s9";
  for (auto _ : state) benchmark::DoNotOptimize(storeapi::crypto::sha256(key));
}
BENCHMARK(BM_Sha256Key)->ThreadRange(1, 2)->UseRealTime();

void BM_HmacCursor(benchmark::State& state) {
  const std::string secret(32, 's');
  const std::string cursor = "v1|orders|desc|2026-11-21T20:39:02.123Z|0b5e7a3c-1f2d-4c8e-9a6b-3d2f1e0c9b8a|status=";
  for (auto _ : state) benchmark::DoNotOptimize(storeapi::crypto::hmac_sha256(secret, cursor));
}
BENCHMARK(BM_HmacCursor)->ThreadRange(1, 2)->UseRealTime();

}  // namespace
