#pragma once
// One line per request — time, request id, client address, method, path, status, bytes,
// duration — written by io_uring so the core never blocks on the log: lines
// collect in one buffer while the previous buffer is being written. If the sink cannot
// keep up and 1 MiB is waiting, further lines are dropped and counted rather than
// stalling requests.
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/reactor.hpp"

namespace storeapi::http {

struct AccessRecord {
  std::string_view method;
  std::string_view path;
  int status;
  std::size_t bytes;
  std::uint64_t micros;
  std::string_view request_id;
  std::string_view client;  // the client's address (http/client_address.hpp)
};

class AccessLog : runtime::Completion {
 public:
  AccessLog(int fd, bool enabled);
  bool enabled() const noexcept { return enabled_; }
  void record(const AccessRecord& r);
  std::uint64_t dropped() const noexcept { return dropped_; }

 private:
  static void on_written(runtime::Completion* self, int res, unsigned flags);
  void start_write();
  void write_rest();

  static constexpr std::size_t kMaxPending = 1 << 20;
  int fd_;
  bool enabled_;
  bool writing_ = false;
  std::string pending_;
  std::string in_flight_;
  std::size_t in_flight_offset_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace storeapi::http
