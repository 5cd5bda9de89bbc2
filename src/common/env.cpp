#include "common/env.hpp"

#include <cstdlib>

namespace storeapi::env {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool read_millis(const char* name, std::chrono::milliseconds& out, std::string& error) {
  long long ms = out.count();
  if (!read_number<long long>(name, ms, 1, 86'400'000, error)) return false;
  out = std::chrono::milliseconds(ms);
  return true;
}

}  // namespace storeapi::env
