#include "http/access_log.hpp"

#include <charconv>

#include "common/time.hpp"
#include "runtime/reactor.hpp"

namespace storeapi::http {

AccessLog::AccessLog(int fd, bool enabled) : Completion{&AccessLog::on_written}, fd_(fd), enabled_(enabled) {
  if (enabled_) {
    pending_.reserve(64 * 1024);
    in_flight_.reserve(64 * 1024);
  }
}

void AccessLog::record(const AccessRecord& r) {
  if (!enabled_) return;
  if (pending_.size() >= kMaxPending) {
    ++dropped_;
    return;
  }
  char time[24];
  timefmt::format_ms_utc(timefmt::now_micros(), time);
  char num[24];
  pending_.append(time, sizeof time);
  pending_.push_back(' ');
  pending_.append(r.request_id);
  pending_.push_back(' ');
  pending_.append(r.client);
  pending_.push_back(' ');
  pending_.append(r.method);
  pending_.push_back(' ');
  pending_.append(r.path);
  pending_.push_back(' ');
  auto e = std::to_chars(num, num + sizeof num, r.status).ptr;
  pending_.append(num, static_cast<std::size_t>(e - num));
  pending_.push_back(' ');
  e = std::to_chars(num, num + sizeof num, r.bytes).ptr;
  pending_.append(num, static_cast<std::size_t>(e - num));
  pending_.append("B ");
  e = std::to_chars(num, num + sizeof num, r.micros).ptr;
  pending_.append(num, static_cast<std::size_t>(e - num));
  pending_.append("us\n");
  if (!writing_) start_write();
}

void AccessLog::start_write() {
  in_flight_.swap(pending_);
  pending_.clear();
  in_flight_offset_ = 0;
  writing_ = true;
  write_rest();
}

void AccessLog::write_rest() {
  io_uring_sqe* sqe = runtime::Reactor::current().get_sqe();
  io_uring_prep_write(sqe, fd_, in_flight_.data() + in_flight_offset_,
                      static_cast<unsigned>(in_flight_.size() - in_flight_offset_),
                      static_cast<std::uint64_t>(-1));
  io_uring_sqe_set_data(sqe, static_cast<runtime::Completion*>(this));
}

void AccessLog::on_written(runtime::Completion* self, int res, unsigned) {
  auto* log = static_cast<AccessLog*>(self);
  if (res > 0 && log->in_flight_offset_ + static_cast<std::size_t>(res) < log->in_flight_.size()) {
    // Short write: send the rest of this buffer first, to keep lines whole and in order.
    log->in_flight_offset_ += static_cast<std::size_t>(res);
    return log->write_rest();
  }
  // A failed write (closed pipe, full disk) loses that batch only; logging goes on.
  log->writing_ = false;
  log->in_flight_.clear();
  if (!log->pending_.empty()) log->start_write();
}

}  // namespace storeapi::http
