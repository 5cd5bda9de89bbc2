#pragma once
// The spec's value sets that requests may name (filters, body fields), as the database's
// domains hold them (sql/001_foundation.sql). The C++ side is written once, here;
// tests/api/sql_agreement_pgtest.cpp holds each set to its SQL domain.
#include <array>
#include <cstddef>
#include <string_view>

namespace storeapi::api {

inline constexpr std::array<std::string_view, 9> kOrderStatuses{
    "pending", "pending_payment", "captured", "completed", "canceled", "failed", "confirmed", "refunded", "draft"};
inline constexpr std::array<std::string_view, 9> kFulfillmentStatuses{
    "pending", "confirmed", "processing", "ready", "shipped", "delivered", "canceled", "returned", "fulfilled"};
inline constexpr std::array<std::string_view, 4> kOrderChannels{"storefront", "marketplace", "platform", "dashboard"};
inline constexpr std::array<std::string_view, 4> kBookingStatuses{"pending", "accepted", "canceled", "initiated"};
inline constexpr std::array<std::string_view, 4> kProductTypes{"physical", "digital", "consulting", "webinar"};
inline constexpr std::array<std::string_view, 7> kProductStatuses{
    "pending", "approved", "deleted", "archived", "featured", "in_review", "draft"};
inline constexpr std::array<std::string_view, 2> kDiscountTypes{"percentage", "fixed"};
// How POST .../stock changes a variant's stock: to `quantity`, or by it. Named on their
// own as well, because the endpoint's rules differ by mode.
inline constexpr std::string_view kStockModeSet = "set";
inline constexpr std::string_view kStockModeAdjust = "adjust";
inline constexpr std::array<std::string_view, 2> kStockModes{kStockModeSet, kStockModeAdjust};

// "Expected one of a, b, c." for a value set: the message of a body field outside it,
// built at compile time from the set itself (error messages are static text).
template <const auto& Values>
class OneOfMessage {
  static constexpr std::string_view kLead = "Expected one of ", kSeparator = ", ", kEnd = ".";
  static constexpr std::size_t kSize = [] {
    std::size_t n = kLead.size() + kEnd.size() + kSeparator.size() * (Values.size() - 1);
    for (std::string_view v : Values) n += v.size();
    return n;
  }();
  static constexpr std::array<char, kSize> kText = [] {
    std::array<char, kSize> out{};
    std::size_t at = 0;
    auto append = [&](std::string_view part) {
      for (char c : part) out[at++] = c;
    };
    append(kLead);
    for (std::size_t i = 0; i < Values.size(); ++i) {
      if (i > 0) append(kSeparator);
      append(Values[i]);
    }
    append(kEnd);
    return out;
  }();

 public:
  static constexpr std::string_view text{kText.data(), kText.size()};
};

}  // namespace storeapi::api
