#include "admin/base/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace storeapi::admin {
namespace {

// 950, 5.3k, 12k, 1.2M: the rate as a person reads it.
std::string short_count(double n) {
  char text[32];
  if (n >= 1e6) std::snprintf(text, sizeof text, n >= 1e7 ? "%.0fM" : "%.1fM", n / 1e6);
  else if (n >= 1e3) std::snprintf(text, sizeof text, n >= 1e4 ? "%.0fk" : "%.1fk", n / 1e3);
  else std::snprintf(text, sizeof text, "%.0f", n);
  return text;
}

std::string duration(double seconds) {
  const long s = std::lround(seconds);
  char text[48];
  if (s < 60) std::snprintf(text, sizeof text, "%ld s", s);
  else if (s < 3600) std::snprintf(text, sizeof text, "%ld min %ld s", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%ld h %ld min", s / 3600, s % 3600 / 60);
  return text;
}

constexpr auto kPlainEvery = std::chrono::seconds(30);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

}  // namespace

std::string progress_line(std::string_view task, std::string_view phase, std::size_t done, std::size_t total,
                          std::string_view unit, double seconds) {
  // Appended piece by piece: g++ 12 at -O3 warns (-Wrestrict, a false positive) on long
  // chains of std::string operator+.
  std::string line(task);
  line.append(" ").append(phase).append(": ").append(std::to_string(done)).append("/");
  line.append(std::to_string(total)).append(" ").append(unit).append(" ");
  line.append(std::to_string(total == 0 ? 100 : done * 100 / total)).append("%");
  if (seconds > 0 && done > 0) {
    const double rate = static_cast<double>(done) / seconds;
    line.append(" ").append(short_count(rate)).append(" ").append(unit).append("/s");
    if (done < total) line.append(" ").append(duration(static_cast<double>(total - done) / rate)).append(" left");
  }
  return line;
}

Progress::Progress(std::string_view task, std::string_view unit)
    : task_(task), unit_(unit), terminal_(isatty(STDERR_FILENO) == 1), last_drawn_(Clock::now()) {}

Progress::~Progress() {
  if (terminal_ && drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::update(std::string_view phase, std::size_t done, std::size_t total) {
  const auto now = Clock::now();
  if (phase != phase_) {
    phase_ = phase;
    phase_started_ = now;
  }
  if (now - last_drawn_ < (terminal_ ? kRedrawEvery : kPlainEvery) && !(terminal_ && done == total)) return;
  last_drawn_ = now;
  drawn_ = true;
  const std::string line =
      progress_line(task_, phase_, done, total, unit_, std::chrono::duration<double>(now - phase_started_).count());
  if (terminal_) std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else std::fprintf(stderr, "storeapi-admin: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace storeapi::admin
