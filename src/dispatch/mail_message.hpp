#pragma once
// An e-mail as RFC 5322 text: UTF-8 text/plain, the body in base64 (so any text and any
// line length passes every relay), non-ASCII header text as RFC 2047 encoded words.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace storeapi::dispatch {

struct Mail {
  std::string from_name;     // display name, any UTF-8
  std::string from_address;  // plain address (is_plain_address)
  std::string to;            // plain address
  std::optional<std::string> reply_to;
  std::string subject;       // one line, any UTF-8
  std::string message_id;    // without the angle brackets
  std::int64_t date = 0;     // Unix seconds
  std::string body;          // lines end in '\n'
  std::string trace_id;      // X-Trace-Id when not empty: 32 lowercase hex (common/trace_context.hpp)
};

// The message with CRLF line ends, ready for SMTP DATA.
std::string format_mail(const Mail& mail);

// local@domain in printable ASCII without spaces, quotes, brackets, commas or semicolons:
// safe in a header and in the SMTP envelope.
bool is_plain_address(std::string_view address);

}  // namespace storeapi::dispatch
