#include "db/pool_metrics.hpp"

#include "db/result.hpp"
#include "metrics/registry.hpp"

namespace storeapi::db {
namespace {

metrics::Registry& registry() { return metrics::Registry::process(); }

// The core this pool belongs to (pools are made on their core's thread); "none" elsewhere.
std::string core_label() {
  unsigned core = metrics::this_thread_core();
  return core == metrics::kNoCore ? "none" : std::to_string(core);
}

}  // namespace

PoolMetrics::PoolMetrics()
    : reconnects(registry()
                     .counter("storeapi_db_reconnects_total", "Database connections lost (each is re-established).",
                              {"core"})
                     .with({core_label()})),
      in_flight(registry()
                    .gauge("storeapi_db_units_in_flight", "Database units handed to the pool and not finished.", {"core"})
                    .with({core_label()})),
      queued(registry()
                 .gauge("storeapi_db_units_queued", "Database units waiting for a free connection slot.", {"core"})
                 .with({core_label()})),
      unit_duration(registry()
                        .histogram("storeapi_db_unit_duration_seconds",
                                   "Time from handing a unit to the pool to its last result.")
                        .with({})),
      unavailable(registry()
                      .counter("storeapi_db_refused_units_total",
                               "Units refused (503) because no connection was up or the queue was full.", {"reason"})
                      .with({"unavailable"})),
      overloaded(registry()
                     .counter("storeapi_db_refused_units_total",
                              "Units refused (503) because no connection was up or the queue was full.", {"reason"})
                     .with({"overloaded"})),
      connections_up_(registry()
                          .gauge("storeapi_db_connections_up", "Database connections up and prepared.", {"core"})
                          .with({core_label()})),
      core_(core_label()) {}

void PoolMetrics::set_connections_up(unsigned up) noexcept {
  connections_up_.add(static_cast<std::int64_t>(up) - static_cast<std::int64_t>(reported_up_));
  reported_up_ = up;
}

void PoolMetrics::count_error(const Result& r) {
  std::string sqlstate_class(r.sqlstate().substr(0, 2));
  if (sqlstate_class.empty()) sqlstate_class = "none";
  metrics::Counter*& counter = errors_[sqlstate_class];
  if (!counter)
    counter = &registry()
                   .counter("storeapi_db_errors_total", "Failed statements, by SQLSTATE class.", {"class"})
                   .with({sqlstate_class});
  counter->inc();
}

}  // namespace storeapi::db
