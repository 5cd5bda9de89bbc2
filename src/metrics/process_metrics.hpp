#pragma once
// The process_* metrics every Prometheus client exposes (start time, CPU seconds, RSS,
// open fds) and <prefix>_build_info{version,commit} = 1, read from /proc when scraped.
#include <string_view>

#include "metrics/registry.hpp"

namespace storeapi::metrics {

void add_process_metrics(Registry& registry, std::string_view build_info_name);

}  // namespace storeapi::metrics
