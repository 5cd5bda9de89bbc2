#include "common/env.hpp"

#include <cstdlib>

namespace storeapi::env {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

void read_millis(const char* name, std::chrono::milliseconds& out) {
  long long ms = out.count();
  read_number<long long>(name, ms, 1, 86'400'000);
  out = std::chrono::milliseconds(ms);
}

}  // namespace storeapi::env
