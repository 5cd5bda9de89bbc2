#pragma once
// The metrics of one core's database pool (db/pool.hpp), labelled with the core.
#include <string>
#include <string_view>
#include <unordered_map>

#include "metrics/series.hpp"

namespace storeapi::db {

class Result;

class PoolMetrics {
 public:
  PoolMetrics();

  // Connections up now, as the pool counts them (set, not added: the pool recounts).
  void set_connections_up(unsigned up) noexcept;
  // Every failed statement of a finished unit, by SQLSTATE class ("23", "40", ...).
  void count_error(const Result& r);

  metrics::Counter& reconnects;
  metrics::Gauge& in_flight;  // handed to the pool and not finished (queued ones too)
  metrics::Gauge& queued;     // waiting for a free connection slot
  metrics::Histogram& unit_duration;
  metrics::Counter& unavailable;  // answered 503: no connection up
  metrics::Counter& overloaded;   // answered 503: the queue was full

 private:
  metrics::Gauge& connections_up_;
  unsigned reported_up_ = 0;
  std::string core_;
  std::unordered_map<std::string, metrics::Counter*> errors_;  // by class, this core only
};

}  // namespace storeapi::db
