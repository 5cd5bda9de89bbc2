#include "app/config.hpp"

#include <charconv>
#include <cstdlib>

#include "common/crypto.hpp"

namespace storeapi::app {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Parses a positive integer variable into `out`; false (and `error`) when malformed.
template <class T>
bool read_number(const char* name, T& out, T min, T max, std::string& error) {
  const char* v = env(name);
  if (!v) return true;
  std::string_view text(v);
  T value{};
  auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size() || value < min || value > max) {
    error = std::string(name) + ": expected a whole number from " + std::to_string(min) + " to " +
            std::to_string(max) + ", got '" + v + "'";
    return false;
  }
  out = value;
  return true;
}

bool read_millis(const char* name, std::chrono::milliseconds& out, std::string& error) {
  long long ms = out.count();
  if (!read_number<long long>(name, ms, 1, 86'400'000, error)) return false;
  out = std::chrono::milliseconds(ms);
  return true;
}

}  // namespace

std::optional<Config> Config::from_env(std::string& error) {
  Config c;
  c.threads = runtime::Cores::online_cpus();
  if (const char* v = env("STOREAPI_LISTEN"); v && !runtime::ListenAddress::parse(v, c.listen)) {
    error = std::string("STOREAPI_LISTEN: expected host:port, got '") + v + "'";
    return std::nullopt;
  }
  if (!read_number<unsigned>("STOREAPI_THREADS", c.threads, 1, 256, error) ||
      !read_number<std::size_t>("STOREAPI_MAX_CONNECTIONS", c.max_connections, 1, 1'000'000, error) ||
      !read_number<unsigned>("STOREAPI_DB_CONNS_PER_THREAD", c.db_conns_per_thread, 1, 64, error) ||
      !read_millis("STOREAPI_REQUEST_TIMEOUT_MS", c.request_timeout, error) ||
      !read_millis("STOREAPI_IDLE_TIMEOUT_MS", c.idle_timeout, error) ||
      !read_millis("STOREAPI_SHUTDOWN_GRACE_MS", c.shutdown_grace, error) ||
      !read_millis("STOREAPI_DB_TIMEOUT_MS", c.db_timeout, error))
    return std::nullopt;
  if (const char* v = env("STOREAPI_ACCESS_LOG")) {
    std::string_view s(v);
    if (s == "on") c.access_log = true;
    else if (s == "off") c.access_log = false;
    else {
      error = std::string("STOREAPI_ACCESS_LOG: expected on or off, got '") + v + "'";
      return std::nullopt;
    }
  }
  if (const char* v = env("STOREAPI_DATABASE_URL")) c.database_url = v;
  if (const char* v = env("STOREAPI_SECRET")) {
    c.secret = v;
  } else {
    // Cursors signed with a generated secret stop being valid when the process restarts.
    c.secret = crypto::random_alnum(48);
    c.secret_generated = true;
  }
  return c;
}

}  // namespace storeapi::app
