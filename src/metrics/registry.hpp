#pragma once
// Metric families by name, each with its label names and its series, and their
// Prometheus text exposition (format 0.0.4). The server and the dispatcher use the
// process-wide registry; tests make their own.
//
// Adding a metric is one line where it is counted, e.g. a histogram by stage:
//   metrics::Histogram& parse = metrics::Registry::process()
//       .histogram("storeapi_stage_seconds", "Time spent per request stage.", {"stage"})
//       .with({"parse"});
//   parse.observe(seconds);
// Asking again for a family of the same name returns the same family, so per-core objects
// can each ask for it in their constructor.
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/series.hpp"

namespace storeapi::metrics {

enum class Kind { counter, gauge, histogram };

template <class S>
class Family {
 public:
  // The series with these label values (in the order of the family's label names),
  // created on first use. Takes a lock: look it up once, keep the reference.
  S& with(std::initializer_list<std::string_view> values);
  S& with(std::span<const std::string> values);

 private:
  friend class Registry;
  Family(std::mutex& lock, unsigned cores, std::vector<double> bounds) : lock_(lock), cores_(cores), bounds_(std::move(bounds)) {}

  std::mutex& lock_;
  unsigned cores_;
  std::vector<double> bounds_;  // histograms only
  // Label values and series, in creation order (a deque: references stay valid).
  std::deque<std::pair<std::vector<std::string>, S>> series_;
};

class Registry {
 public:
  // `cores`: how many threads write as cores (metrics::bind_this_thread(0 .. cores-1)).
  explicit Registry(unsigned cores = 0) : cores_(cores) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The registry of this process. set_cores() must come before its first family.
  static Registry& process();
  void set_cores(unsigned cores);

  Family<Counter>& counter(std::string_view name, std::string_view help, std::vector<std::string> labels = {});
  Family<Gauge>& gauge(std::string_view name, std::string_view help, std::vector<std::string> labels = {});
  Family<Histogram>& histogram(std::string_view name, std::string_view help, std::vector<std::string> labels = {},
                               std::span<const double> bounds = latency_buckets());
  // A value computed when scraped (RSS, CPU seconds, open fds), a gauge or a counter.
  // `read` runs on the scraping thread: it may only read what is safe to read from there
  // (atomics, /proc). Registering the name again replaces `read`.
  void computed(std::string_view name, std::string_view help, Kind kind, std::function<double()> read);

  // Every family, in registration order, as Prometheus text format 0.0.4.
  std::string expose() const;

 private:
  struct Entry {
    std::string name;
    std::string help;
    Kind kind;
    std::vector<std::string> labels;
    std::function<double()> read;  // computed values
    // The one that matches `kind` (none for a computed value).
    std::unique_ptr<Family<Counter>> counters;
    std::unique_ptr<Family<Gauge>> gauges;
    std::unique_ptr<Family<Histogram>> histograms;
  };
  Entry& find_or_add(std::string_view name, std::string_view help, Kind kind, std::vector<std::string> labels);

  mutable std::mutex lock_;
  unsigned cores_;
  std::deque<Entry> entries_;
};

}  // namespace storeapi::metrics
