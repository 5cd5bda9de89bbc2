#pragma once
// The spec's value sets that requests may name (filters, body fields), as the database's
// domains hold them (sql/001_foundation.sql).
#include <array>
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

}  // namespace storeapi::api
