#include "metrics/registry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace storeapi::metrics {
namespace {

constexpr double kLatencyBuckets[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                      0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10};

void append_number(std::string& out, double v) {
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  char buf[32];
  out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

void append_number(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

// Label values escape backslash, double quote and line feed (text format 0.0.4).
void append_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

// `{a="x",b="y"}` plus an optional trailing label (a histogram bucket's `le`).
void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name = {}, std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return;
  out += '{';
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += names[i];
    out += "=\"";
    append_label_value(out, values[i]);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

// HELP text escapes backslash and line feed.
void append_help(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

}  // namespace

std::span<const double> latency_buckets() noexcept { return kLatencyBuckets; }

template <class S>
S& Family<S>::with(std::span<const std::string> values) {
  std::lock_guard guard(lock_);
  for (auto& [v, s] : series_)
    if (std::equal(v.begin(), v.end(), values.begin(), values.end())) return s;
  std::vector<std::string> copy(values.begin(), values.end());
  if constexpr (std::is_same_v<S, Histogram>) return series_.emplace_back(std::piecewise_construct, std::forward_as_tuple(std::move(copy)), std::forward_as_tuple(cores_, bounds_)).second;
  else return series_.emplace_back(std::piecewise_construct, std::forward_as_tuple(std::move(copy)), std::forward_as_tuple(cores_)).second;
}

template <class S>
S& Family<S>::with(std::initializer_list<std::string_view> values) {
  std::vector<std::string> copy(values.begin(), values.end());
  return with(std::span<const std::string>(copy));
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

Registry& Registry::process() {
  static Registry registry;
  return registry;
}

void Registry::set_cores(unsigned cores) {
  std::lock_guard guard(lock_);
  if (!entries_.empty()) throw std::logic_error("metrics: set_cores after the first family");
  cores_ = cores;
}

Registry::Entry& Registry::find_or_add(std::string_view name, std::string_view help, Kind kind,
                                       std::vector<std::string> labels) {
  for (Entry& e : entries_) {
    if (e.name != name) continue;
    if (e.kind != kind || e.labels != labels)
      throw std::logic_error("metrics: " + std::string(name) + " registered twice with different kind or labels");
    return e;
  }
  Entry& e = entries_.emplace_back();
  e.name = name;
  e.help = help;
  e.kind = kind;
  e.labels = std::move(labels);
  return e;
}

Family<Counter>& Registry::counter(std::string_view name, std::string_view help, std::vector<std::string> labels) {
  std::lock_guard guard(lock_);
  Entry& e = find_or_add(name, help, Kind::counter, std::move(labels));
  if (!e.counters) e.counters.reset(new Family<Counter>(lock_, cores_, {}));
  return *e.counters;
}

Family<Gauge>& Registry::gauge(std::string_view name, std::string_view help, std::vector<std::string> labels) {
  std::lock_guard guard(lock_);
  Entry& e = find_or_add(name, help, Kind::gauge, std::move(labels));
  if (e.read) throw std::logic_error("metrics: " + std::string(name) + " is computed, not counted");
  if (!e.gauges) e.gauges.reset(new Family<Gauge>(lock_, cores_, {}));
  return *e.gauges;
}

Family<Histogram>& Registry::histogram(std::string_view name, std::string_view help, std::vector<std::string> labels,
                                       std::span<const double> bounds) {
  std::lock_guard guard(lock_);
  Entry& e = find_or_add(name, help, Kind::histogram, std::move(labels));
  if (!e.histograms) e.histograms.reset(new Family<Histogram>(lock_, cores_, {bounds.begin(), bounds.end()}));
  return *e.histograms;
}

void Registry::computed(std::string_view name, std::string_view help, Kind kind, std::function<double()> read) {
  std::lock_guard guard(lock_);
  Entry& e = find_or_add(name, help, kind, {});
  if (e.counters || e.gauges || e.histograms)
    throw std::logic_error("metrics: " + std::string(name) + " is counted, not computed");
  e.read = std::move(read);
}

std::string Registry::expose() const {
  std::lock_guard guard(lock_);
  std::string out;
  out.reserve(16 * 1024);
  for (const Entry& e : entries_) {
    out += "# HELP ";
    out += e.name;
    out += ' ';
    append_help(out, e.help);
    out += "\n# TYPE ";
    out += e.name;
    out += e.kind == Kind::counter ? " counter\n" : e.kind == Kind::gauge ? " gauge\n" : " histogram\n";
    if (e.read) {
      out += e.name;
      out += ' ';
      append_number(out, e.read());
      out += '\n';
    }
    auto scalars = [&](const auto& series, auto value) {
      for (const auto& [values, one] : series) {
        out += e.name;
        append_labels(out, e.labels, values);
        out += ' ';
        append_number(out, value(one));
        out += '\n';
      }
    };
    if (e.counters) scalars(e.counters->series_, [](const Counter& c) { return c.value(); });
    if (e.gauges) scalars(e.gauges->series_, [](const Gauge& g) { return static_cast<double>(g.value()); });
    if (e.histograms)
      for (const auto& [values, h] : e.histograms->series_) {
        // Read each bucket once and derive count from them, so that a scrape racing an
        // observation never shows a +Inf bucket different from _count.
        std::uint64_t cumulative = 0;
        std::string le;
        for (unsigned i = 0; i <= h.bounds().size(); ++i) {
          cumulative += h.bucket(i);
          le.clear();
          append_number(le, i < h.bounds().size() ? h.bounds()[i] : INFINITY);
          out += e.name;
          out += "_bucket";
          append_labels(out, e.labels, values, "le", le);
          out += ' ';
          append_number(out, cumulative);
          out += '\n';
        }
        out += e.name;
        out += "_sum";
        append_labels(out, e.labels, values);
        out += ' ';
        append_number(out, h.sum());
        out += '\n';
        out += e.name;
        out += "_count";
        append_labels(out, e.labels, values);
        out += ' ';
        append_number(out, cumulative);
        out += '\n';
      }
  }
  return out;
}

}  // namespace storeapi::metrics
