#include "admin/progress.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>

namespace storeapi::admin {

Progress::Progress() : enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (enabled_ && last_percent_ >= 0) std::fputs("\r\033[K", stderr);
}

void Progress::update(std::string_view phase, std::size_t done, std::size_t total) {
  if (!enabled_) return;
  int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
  if (percent == last_percent_ && phase == last_phase_) return;
  last_percent_ = percent;
  last_phase_ = phase;
  constexpr int width = 30;
  std::string bar(static_cast<std::size_t>(percent * width / 100), '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "\r\033[Kseed %-12.*s [%s] %3d%%", static_cast<int>(phase.size()), phase.data(),
               bar.c_str(), percent);
  std::fflush(stderr);
}

}  // namespace storeapi::admin
