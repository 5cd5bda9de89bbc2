#pragma once
// The dispatcher's log: one line per event worth an operator's attention, on stderr,
// "<RFC 3339 time> storeapi-dispatch: <message>".
#include <string_view>

namespace storeapi::dispatch {

void log_line(std::string_view message);

}  // namespace storeapi::dispatch
