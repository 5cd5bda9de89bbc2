#pragma once
// Reading settings from the environment, shared by the server and the dispatcher.
// Each reader leaves `out` alone when the variable is unset or empty, and on a malformed
// value throws SettingError with a one-line message naming the variable (start-up code
// fails by exception: docs/ARCHITECTURE.md, "Errors").
#include <chrono>
#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>

namespace storeapi::env {

// A setting that cannot be used; what() is one line naming the variable. The binaries
// print it and exit with status 2.
class SettingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The variable's value, or nullptr when it is unset or empty. A value holding " #" (or a
// tab before '#') throws SettingError: systemd's EnvironmentFile, like a shell's `export`,
// takes a comment on a setting's own line as part of the value, and no setting's value
// has a blank before a '#' (URLs escape blanks), so the only way to get one is that
// comment. The message says where comments go instead of some later, puzzling refusal.
const char* get(const char* name);

template <class T>
void read_number(const char* name, T& out, T min, T max) {
  const char* v = get(name);
  if (!v) return;
  std::string_view text(v);
  T value{};
  auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size() || value < min || value > max)
    throw SettingError(std::string(name) + ": expected a whole number from " + std::to_string(min) + " to " +
                       std::to_string(max) + ", got '" + v + "'");
  out = value;
}

// Milliseconds from 1 to one day.
void read_millis(const char* name, std::chrono::milliseconds& out);

}  // namespace storeapi::env
