#include "runtime/io.hpp"

namespace storeapi::runtime {
namespace {
__kernel_timespec to_timespec(std::chrono::nanoseconds ns) {
  __kernel_timespec ts{};
  ts.tv_sec = ns.count() / 1'000'000'000;
  ts.tv_nsec = ns.count() % 1'000'000'000;
  return ts;
}
}  // namespace

Deadline Deadline::at(Clock::time_point t) noexcept {
  return Deadline{to_timespec(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()))};
}

Sleep::Sleep(Clock::duration d) noexcept
    : ts_(to_timespec(std::chrono::duration_cast<std::chrono::nanoseconds>(d))) {}

}  // namespace storeapi::runtime
