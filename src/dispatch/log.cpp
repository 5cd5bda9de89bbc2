#include "dispatch/log.hpp"

#include "common/time.hpp"

#include <cstdio>
#include <string>

namespace storeapi::dispatch {

void log_line(std::string_view message) {
  std::string line = timefmt::format_ms_utc(timefmt::now_micros());
  line.append(" storeapi-dispatch: ").append(message).push_back('\n');
  // One write per line, so lines of dispatchers sharing a log file never interleave.
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace storeapi::dispatch
