// What reading a result through its typed row costs (db/row.hpp) against reading it by
// column number, as the readers did before: the key lookup's row (kKeyByHash, every
// column the authenticator reads, the plan three times as it does) and a page of 25
// stored documents. Both sides read the same cells of the same client-built PGresult;
// the typed accessors resolve their column at compile time, so the two should cost the
// same. The machine is shared: compare instruction counts (valgrind --tool=callgrind),
// not times (bench/RESULTS.md, "Typed statements").
#include <benchmark/benchmark.h>
#include <libpq-fe.h>

#include <string>
#include <vector>

#include "api/lists/list_sql.hpp"
#include "auth/authenticator.hpp"
#include "db/result.hpp"
#include "db/row.hpp"

using namespace storeapi;

namespace {

db::Result make_result(int rows, std::span<const db::Column> columns) {
  PGresult* r = PQmakeEmptyPGresult(nullptr, PGRES_TUPLES_OK);
  std::vector<PGresAttDesc> attrs;
  for (const db::Column& c : columns)
    attrs.push_back(PGresAttDesc{const_cast<char*>(c.name), 0, 0, 0, static_cast<Oid>(c.type), -1, -1});
  PQsetResultAttrs(r, static_cast<int>(attrs.size()), attrs.data());
  const std::string values[] = {"3f0b2c4e-7d1a-4b8e-9c2f-5a6d7e8f9a0b", "1700000000000000", "t", "pro"};
  for (int row = 0; row < rows; ++row)
    for (int col = 0; col < static_cast<int>(columns.size()); ++col) {
      const db::Type type = columns[static_cast<std::size_t>(col)].type;
      const std::string& v = type == db::Type::int8 || type == db::Type::int4 ? values[1]
                             : type == db::Type::boolean                       ? values[2]
                             : type == db::Type::uuid                          ? values[0]
                                                                               : values[3];
      PQsetvalue(r, row, col, const_cast<char*>(v.data()), static_cast<int>(v.size()));
    }
  return db::Result(r);
}

void BM_KeyRowByNumber(benchmark::State& state) {
  const db::Result r = make_result(1, auth::KeyByHash::columns);
  for (auto _ : state) {
    benchmark::DoNotOptimize(r.text(0, 0));
    benchmark::DoNotOptimize(r.text(0, 1));
    benchmark::DoNotOptimize(r.text(0, 4));
    benchmark::DoNotOptimize(r.boolean(0, 6));
    benchmark::DoNotOptimize(r.text(0, 12));
    benchmark::DoNotOptimize(r.int64(0, 13));
    for (int col : {1, 7, 8, 9, 10, 11, 12, 0, 2, 3}) benchmark::DoNotOptimize(r.text(0, col));
    benchmark::DoNotOptimize(r.text(0, 12));
  }
}
BENCHMARK(BM_KeyRowByNumber);

void BM_KeyRowByName(benchmark::State& state) {
  const db::Result r = make_result(1, auth::KeyByHash::columns);
  for (auto _ : state) {
    const auto row = r.row<auth::KeyByHash>(0);
    benchmark::DoNotOptimize(row.id());
    benchmark::DoNotOptimize(row.store_id());
    benchmark::DoNotOptimize(row.scopes());
    benchmark::DoNotOptimize(row.revoked());
    benchmark::DoNotOptimize(row.plan());
    benchmark::DoNotOptimize(row.rate_per_minute());
    benchmark::DoNotOptimize(row.store_id());
    benchmark::DoNotOptimize(row.store_name());
    benchmark::DoNotOptimize(row.slug());
    benchmark::DoNotOptimize(row.url());
    benchmark::DoNotOptimize(row.currency());
    benchmark::DoNotOptimize(row.locale());
    benchmark::DoNotOptimize(row.plan());
    benchmark::DoNotOptimize(row.id());
    benchmark::DoNotOptimize(row.key_name());
    benchmark::DoNotOptimize(row.key_prefix());
    benchmark::DoNotOptimize(row.plan());
  }
}
BENCHMARK(BM_KeyRowByName);

constexpr int kPage = 25;

void BM_PageByNumber(benchmark::State& state) {
  const db::Result r = make_result(kPage + 1, api::PageEntry::columns);
  for (auto _ : state) {
    for (int i = 0; i < kPage; ++i) benchmark::DoNotOptimize(r.text(i, 0));
    benchmark::DoNotOptimize(r.text(kPage - 1, 1));
    benchmark::DoNotOptimize(r.text(kPage - 1, 2));
  }
}
BENCHMARK(BM_PageByNumber);

void BM_PageByName(benchmark::State& state) {
  const db::Result r = make_result(kPage + 1, api::PageEntry::columns);
  for (auto _ : state) {
    for (int i = 0; i < kPage; ++i) benchmark::DoNotOptimize(r.row<api::PageEntry>(i).doc());
    const auto last = r.row<api::PageEntry>(kPage - 1);
    benchmark::DoNotOptimize(last.created_at());
    benchmark::DoNotOptimize(last.id());
  }
}
BENCHMARK(BM_PageByName);

}  // namespace
