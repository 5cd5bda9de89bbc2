#include "common/time.hpp"

#include <chrono>
#include <cstdio>

namespace storeapi::timefmt {
namespace {

using namespace std::chrono;

// Reads exactly `n` decimal digits at `pos`; advances `pos`.
bool read_digits(std::string_view s, std::size_t& pos, int n, int& value) {
  if (pos + static_cast<std::size_t>(n) > s.size()) return false;
  value = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(n);
  return true;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// Date, time and optional fraction shared by both formats; `sep` is the date/time separator.
std::optional<Micros> parse_date_time(std::string_view s, std::size_t& pos, bool (*is_sep)(char)) {
  int y, mo, d, h, mi, sec;
  if (!read_digits(s, pos, 4, y) || !expect(s, pos, '-') || !read_digits(s, pos, 2, mo) ||
      !expect(s, pos, '-') || !read_digits(s, pos, 2, d))
    return std::nullopt;
  if (pos >= s.size() || !is_sep(s[pos])) return std::nullopt;
  ++pos;
  if (!read_digits(s, pos, 2, h) || !expect(s, pos, ':') || !read_digits(s, pos, 2, mi) ||
      !expect(s, pos, ':') || !read_digits(s, pos, 2, sec))
    return std::nullopt;
  if (h > 23 || mi > 59 || sec > 59) return std::nullopt;
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;

  Micros frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) frac = frac * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 6; ++i) frac *= 10;
  }
  auto days = sys_days{ymd}.time_since_epoch().count();
  Micros secs = static_cast<Micros>(days) * 86400 + h * 3600 + mi * 60 + sec;
  return secs * 1'000'000 + frac;
}

}  // namespace

std::optional<Micros> parse_rfc3339(std::string_view s) {
  std::size_t pos = 0;
  auto t = parse_date_time(s, pos, [](char c) { return c == 'T' || c == 't'; });
  if (!t || pos >= s.size()) return std::nullopt;
  char z = s[pos];
  if (z == 'Z' || z == 'z') return pos + 1 == s.size() ? t : std::nullopt;
  if (z != '+' && z != '-') return std::nullopt;
  ++pos;
  int oh, om;
  if (!read_digits(s, pos, 2, oh) || !expect(s, pos, ':') || !read_digits(s, pos, 2, om) ||
      pos != s.size() || oh > 23 || om > 59)
    return std::nullopt;
  Micros offset = (static_cast<Micros>(oh) * 3600 + om * 60) * 1'000'000;
  return z == '+' ? *t - offset : *t + offset;
}

std::optional<Micros> parse_pg_timestamptz(std::string_view s) {
  std::size_t pos = 0;
  auto t = parse_date_time(s, pos, [](char c) { return c == ' '; });
  if (!t) return std::nullopt;
  // A UTC session prints "+00"; anything else means the session time zone is wrong.
  if (s.substr(pos) != "+00") return std::nullopt;
  return t;
}

void format_ms_utc(Micros t, char* out) {
  Micros ms = t >= 0 ? t / 1000 : (t - 999) / 1000;  // floor, also before 1970
  Micros secs_total = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int millis = static_cast<int>(ms - secs_total * 1000);
  Micros days = secs_total >= 0 ? secs_total / 86400 : (secs_total - 86399) / 86400;
  int sod = static_cast<int>(secs_total - days * 86400);
  year_month_day ymd{sys_days{std::chrono::days{days}}};
  int y = static_cast<int>(ymd.year());
  unsigned mo = static_cast<unsigned>(ymd.month());
  unsigned d = static_cast<unsigned>(ymd.day());
  auto put = [&out](int pos, unsigned v, int width) {
    for (int i = width - 1; i >= 0; --i) {
      out[pos + i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
  };
  put(0, static_cast<unsigned>(y), 4);
  out[4] = '-';
  put(5, mo, 2);
  out[7] = '-';
  put(8, d, 2);
  out[10] = 'T';
  put(11, static_cast<unsigned>(sod / 3600), 2);
  out[13] = ':';
  put(14, static_cast<unsigned>(sod / 60 % 60), 2);
  out[16] = ':';
  put(17, static_cast<unsigned>(sod % 60), 2);
  out[19] = '.';
  put(20, static_cast<unsigned>(millis), 3);
  out[23] = 'Z';
}

std::string format_ms_utc(Micros t) {
  std::string out(24, '\0');
  format_ms_utc(t, out.data());
  return out;
}

std::size_t format_pg_utc(Micros t, char* out) {
  const Micros secs_total = t >= 0 ? t / 1'000'000 : (t - 999'999) / 1'000'000;  // floor
  const auto micros = static_cast<unsigned>(t - secs_total * 1'000'000);
  const Micros days = secs_total >= 0 ? secs_total / 86400 : (secs_total - 86399) / 86400;
  const auto sod = static_cast<unsigned>(secs_total - days * 86400);
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  const int y = static_cast<int>(ymd.year());
  const bool bc = y <= 0;  // astronomical year 0 is 1 BC
  const int n = std::snprintf(out, kPgTimestampMax, "%04d-%02u-%02u %02u:%02u:%02u.%06u+00%s", bc ? 1 - y : y,
                              static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), sod / 3600,
                              sod / 60 % 60, sod % 60, micros, bc ? " BC" : "");
  return static_cast<std::size_t>(n);
}

Micros now_micros() {
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace storeapi::timefmt
