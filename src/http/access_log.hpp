#pragma once
// One line per request, written by io_uring so the core never blocks on the log: lines
// collect in one buffer while the previous buffer is being written. If the sink cannot
// keep up and 1 MiB is waiting, further lines are dropped and counted
// (storeapi_access_log_dropped_lines_total) rather than stalling requests; so are the
// lines of a write that failed (closed pipe, full disk).
//
// Every core has its own log on the same file descriptor. So that lines from several
// cores never interleave on a pipe, each write carries whole lines only and at most
// PIPE_BUF bytes (POSIX makes such pipe writes atomic), and no line is longer than that.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "metrics/series.hpp"
#include "runtime/reactor.hpp"

namespace storeapi::http {

enum class AccessLogFormat { off, text, json };

struct AccessRecord {
  std::string_view request_id;
  std::string_view trace_id;
  std::string_view client;  // "address:port" of the peer
  std::string_view method;
  std::string_view route;   // the route template; empty when none matched
  std::string_view path;
  int status;
  std::string_view error_code;  // empty unless an error answer
  std::size_t bytes_in;         // request body
  std::size_t bytes_out;        // response body
  std::uint64_t micros;
  std::uint64_t database_micros;  // the request's database units (queue and round trip); 0 when none
  std::string_view store_id;    // empty unless authenticated
  std::string_view key_prefix;
};

// The line for `r` (with its '\n') appended to `out`; `time` is RFC 3339 UTC with
// milliseconds. JSON: one object per line; the path is cut to kMaxLoggedPath bytes.
void format_access_line(AccessLogFormat format, std::string_view time, const AccessRecord& r, std::string& out);
inline constexpr std::size_t kMaxLoggedPath = 512;

class AccessLog : runtime::Completion {
 public:
  AccessLog(int fd, AccessLogFormat format);
  bool enabled() const noexcept { return format_ != AccessLogFormat::off; }
  void record(const AccessRecord& r);
  // Runs `done` once every line recorded so far has been written (or counted as dropped):
  // at once when nothing is waiting, else from the completion of the last write. The core
  // calls it before its loop stops, since writes still queued die with the ring, and a
  // server that exits would lose the last requests' lines.
  void when_flushed(std::function<void()> done);

 private:
  static void on_written(runtime::Completion* self, int res, unsigned flags);
  void start_write();
  void write_chunk();

  static constexpr std::size_t kMaxPending = 1 << 20;
  int fd_;
  AccessLogFormat format_;
  bool writing_ = false;
  std::string pending_;
  std::string in_flight_;
  std::size_t in_flight_offset_ = 0;  // written so far
  std::function<void()> on_flushed_;
  metrics::Counter& dropped_;
};

}  // namespace storeapi::http
