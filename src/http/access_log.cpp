#include "http/access_log.hpp"

#include <limits.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "common/time.hpp"
#include "json/writer.hpp"
#include "metrics/registry.hpp"
#include "runtime/reactor.hpp"

namespace storeapi::http {
namespace {

void append_number(std::string& out, std::uint64_t v) {
  char num[24];
  out.append(num, static_cast<std::size_t>(std::to_chars(num, num + sizeof num, v).ptr - num));
}

void append_text_line(std::string_view time, const AccessRecord& r, std::string& out) {
  out.append(time);
  out.push_back(' ');
  out.append(r.request_id);
  out.push_back(' ');
  out.append(r.method);
  out.push_back(' ');
  out.append(r.path.substr(0, kMaxLoggedPath));
  out.push_back(' ');
  append_number(out, static_cast<std::uint64_t>(r.status));
  out.push_back(' ');
  append_number(out, r.bytes_out);
  out.append("B ");
  append_number(out, r.micros);
  out.append("us\n");
}

void append_json_line(std::string_view time, const AccessRecord& r, std::string& out) {
  auto text_or_null = [](json::Writer& w, std::string_view key, std::string_view v) {
    w.key(key);
    if (v.empty()) w.null();
    else w.string(v);
  };
  json::Writer w(out);
  w.begin_object();
  w.key("time").string(time);
  w.key("request_id").string(r.request_id);
  w.key("trace_id").string(r.trace_id);
  w.key("client").string(r.client);
  w.key("method").string(r.method.substr(0, 16));
  text_or_null(w, "route", r.route);
  w.key("path").string(r.path.substr(0, kMaxLoggedPath));
  w.key("status").integer(r.status);
  text_or_null(w, "error", r.error_code);
  w.key("bytes_in").integer(static_cast<std::int64_t>(r.bytes_in));
  w.key("bytes_out").integer(static_cast<std::int64_t>(r.bytes_out));
  w.key("total_us").integer(static_cast<std::int64_t>(r.micros));
  w.key("db_us").integer(static_cast<std::int64_t>(r.database_micros));
  text_or_null(w, "store_id", r.store_id);
  text_or_null(w, "key_prefix", r.key_prefix.substr(0, 16));
  w.end_object();
  out.push_back('\n');
}

}  // namespace

void format_access_line(AccessLogFormat format, std::string_view time, const AccessRecord& r, std::string& out) {
  if (format == AccessLogFormat::json) append_json_line(time, r, out);
  else if (format == AccessLogFormat::text) append_text_line(time, r, out);
}

AccessLog::AccessLog(int fd, AccessLogFormat format)
    : Completion{&AccessLog::on_written},
      fd_(fd),
      format_(format),
      dropped_(metrics::Registry::process()
                   .counter("storeapi_access_log_dropped_lines_total",
                            "Access log lines dropped because the sink could not keep up.")
                   .with({})) {
  if (enabled()) {
    pending_.reserve(64 * 1024);
    in_flight_.reserve(64 * 1024);
  }
}

void AccessLog::record(const AccessRecord& r) {
  if (!enabled()) return;
  if (pending_.size() >= kMaxPending) {
    dropped_.inc();
    return;
  }
  char time[24];
  timefmt::format_ms_utc(timefmt::now_micros(), time);
  std::size_t start = pending_.size();
  format_access_line(format_, {time, sizeof time}, r, pending_);
  if (pending_.size() - start > PIPE_BUF) {
    // Cannot happen with the fields capped above; a line that could interleave is dropped.
    pending_.resize(start);
    dropped_.inc();
    return;
  }
  if (!writing_) start_write();
}

void AccessLog::start_write() {
  in_flight_.swap(pending_);
  pending_.clear();
  in_flight_offset_ = 0;
  writing_ = true;
  write_chunk();
}

void AccessLog::write_chunk() {
  // Up to PIPE_BUF bytes ending with a whole line: lines are at most PIPE_BUF long, so
  // there is always one.
  std::string_view rest(in_flight_.data() + in_flight_offset_, in_flight_.size() - in_flight_offset_);
  std::size_t length = rest.size();
  if (length > PIPE_BUF) length = rest.rfind('\n', PIPE_BUF - 1) + 1;
  io_uring_sqe* sqe = runtime::Reactor::current().get_sqe();
  io_uring_prep_write(sqe, fd_, rest.data(), static_cast<unsigned>(length), static_cast<std::uint64_t>(-1));
  io_uring_sqe_set_data(sqe, static_cast<runtime::Completion*>(this));
}

void AccessLog::on_written(runtime::Completion* self, int res, unsigned) {
  auto* log = static_cast<AccessLog*>(self);
  if (res > 0) {
    // A short write (only to a file or socket: pipe writes of this size are whole) is
    // continued from where it stopped, keeping lines whole and in order.
    log->in_flight_offset_ += static_cast<std::size_t>(res);
    if (log->in_flight_offset_ < log->in_flight_.size()) return log->write_chunk();
  } else {
    // A failed write (closed pipe, full disk) loses the rest of that batch only, counted
    // as dropped; logging goes on. (A line cut by an earlier short write counts too.)
    const std::string_view lost(log->in_flight_.data() + log->in_flight_offset_,
                                log->in_flight_.size() - log->in_flight_offset_);
    log->dropped_.inc(static_cast<std::uint64_t>(std::count(lost.begin(), lost.end(), '\n')));
  }
  log->writing_ = false;
  log->in_flight_.clear();
  if (!log->pending_.empty()) return log->start_write();
  if (log->on_flushed_) std::exchange(log->on_flushed_, nullptr)();
}

void AccessLog::when_flushed(std::function<void()> done) {
  // Lines wait in pending_ only while a write is in flight (record starts one otherwise).
  if (!writing_) return done();
  on_flushed_ = std::move(done);
}

}  // namespace storeapi::http
