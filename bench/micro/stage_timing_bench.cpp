// What stage timing (common/stage_timing.hpp) adds to one request: the clock reads and
// histogram records a DB-backed request makes with STOREAPI_STAGE_TIMING on (recv,
// parse start and end, handler start and end, auth start and end, the unit's entry,
// first in line (behind another unit) and answer, send start and end: 12 reads;
// read_wait, parse, auth, db_queue, db_pipeline, db, render, send, total: 9 records),
// against the same request with it off (the branches only).
#include <benchmark/benchmark.h>

#include "common/stage_timing.hpp"

using namespace storeapi;
using stage_timing::Stage;

namespace {

void one_request() {
  stage_timing::Clock::time_point t[12];
  for (auto& stamp : t) benchmark::DoNotOptimize(stamp = stage_timing::now_if_enabled());
  for (Stage s : {Stage::read_wait, Stage::parse, Stage::auth, Stage::db_queue, Stage::db_pipeline, Stage::db,
                  Stage::render, Stage::send, Stage::total})
    stage_timing::record(s, t[11] - t[static_cast<int>(s)]);
}

void BM_StageTimingPerRequest(benchmark::State& state) {
  stage_timing::enable(state.range(0) != 0);
  for (auto _ : state) one_request();
  stage_timing::enable(false);
}
BENCHMARK(BM_StageTimingPerRequest)->Arg(0)->Arg(1)->ArgName("on")->ThreadRange(1, 2);

}  // namespace
