#pragma once
// Reading a /metrics endpoint in tests: the exposition, one series' value, and
// `promtool check metrics` on it.
#include <cstdint>
#include <string>

namespace storeapi::testing {

// GET /metrics on 127.0.0.1:port; the body (a test failure unless 200).
std::string scrape_metrics(std::uint16_t port);

// The value of the exposition line `series` (name and labels exactly as exposed), or -1
// when there is none.
double metric_value(const std::string& exposition, const std::string& series);

// Runs `promtool check metrics` on the exposition: empty when it finds nothing, else its
// complaints.
std::string promtool_check_metrics(const std::string& exposition);

}  // namespace storeapi::testing
