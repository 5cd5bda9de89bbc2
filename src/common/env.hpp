#pragma once
// Reading settings from the environment, shared by the server and the dispatcher.
// Each reader leaves `out` alone when the variable is unset or empty, and on a malformed
// value returns false with a one-line `error` naming the variable.
#include <chrono>
#include <charconv>
#include <string>
#include <string_view>

namespace storeapi::env {

// The variable's value, or nullptr when it is unset or empty.
const char* get(const char* name);

template <class T>
bool read_number(const char* name, T& out, T min, T max, std::string& error) {
  const char* v = get(name);
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

// Milliseconds from 1 to one day.
bool read_millis(const char* name, std::chrono::milliseconds& out, std::string& error);

}  // namespace storeapi::env
