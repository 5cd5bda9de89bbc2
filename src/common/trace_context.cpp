#include "common/trace_context.hpp"

#include <cstdint>
#include <random>

namespace storeapi::trace {
namespace {

bool lower_hex(std::string_view s) noexcept {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool all_zero(std::string_view s) noexcept { return s.find_first_not_of('0') == std::string_view::npos; }

std::uint64_t random_bits() noexcept {
  // Per-thread generator, seeded once from the OS: trace and span ids need uniqueness, not secrecy.
  thread_local std::mt19937_64 random{(std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()};
  return random();
}

// `v` as 16 lowercase hex digits, most significant first.
void write_hex(std::uint64_t v, char* out) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(v >> (4 * i)) & 0xf];
}

}  // namespace

std::string_view trace_id_of(std::string_view tp) noexcept {
  // version "-" trace-id "-" parent-id "-" flags
  if (tp.size() < 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-') return {};
  std::string_view version = tp.substr(0, 2), trace = tp.substr(3, 32), parent = tp.substr(36, 16),
                   flags = tp.substr(53, 2);
  if (!lower_hex(version) || version == "ff" || !lower_hex(trace) || !lower_hex(parent) || !lower_hex(flags))
    return {};
  // Version 00 is exactly 55 characters; a later version may carry more after a dash.
  if (version == "00" ? tp.size() != 55 : (tp.size() > 55 && tp[55] != '-')) return {};
  if (all_zero(trace) || all_zero(parent)) return {};
  return trace;
}

bool is_trace_id(std::string_view s) noexcept { return s.size() == kTraceIdLength && lower_hex(s) && !all_zero(s); }

void new_trace_id(char (&out)[kTraceIdLength]) noexcept {
  std::uint64_t high, low;
  do {
    high = random_bits();
    low = random_bits();
  } while (high == 0 && low == 0);
  write_hex(high, out);
  write_hex(low, out + 16);
}

std::string child_traceparent(std::string_view trace_id) {
  std::uint64_t span;
  do span = random_bits();
  while (span == 0);
  std::string out = "00-";
  out.append(trace_id);
  out.push_back('-');
  char span_hex[kSpanIdLength];
  write_hex(span, span_hex);
  out.append(span_hex, kSpanIdLength);
  out.append("-01");
  return out;
}

}  // namespace storeapi::trace
