#include "dispatch/mail_message.hpp"

#include "common/crypto.hpp"

#include <ctime>

namespace storeapi::dispatch {
namespace {

constexpr std::size_t kBase64LineLength = 76;  // RFC 2045
// 39 bytes make 52 base64 characters: with "=?UTF-8?B?", "?=" and a header name such as
// "Subject: " a line stays within RFC 2047's 76 characters.
constexpr std::size_t kEncodedWordBytes = 39;
constexpr std::size_t kPlainHeaderLimit = 200;

bool is_printable_ascii(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
  return true;
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// RFC 2047 encoded words, split between characters and folded onto continuation lines.
std::string encoded_words(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    std::size_t n = std::min(kEncodedWordBytes, text.size());
    std::size_t cut = n;
    while (cut > 0 && cut < text.size() && is_continuation(text[cut])) --cut;
    if (cut > 0) n = cut;  // text that is not UTF-8 has no boundaries: cut anywhere
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + crypto::base64(text.substr(0, n)) + "?=";
    text.remove_prefix(n);
  }
  return out;
}

// Header text: as it is when short printable ASCII, encoded words otherwise.
std::string header_text(std::string_view text) {
  if (is_printable_ascii(text) && text.size() <= kPlainHeaderLimit) return std::string(text);
  return encoded_words(text);
}

// "Name" <address>, the name quoted or encoded.
std::string mailbox(std::string_view name, std::string_view address) {
  std::string out;
  if (is_printable_ascii(name) && name.size() <= kPlainHeaderLimit) {
    out.push_back('"');
    for (char c : name) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  } else {
    out = encoded_words(name);
  }
  return out + " <" + std::string(address) + ">";
}

std::string rfc5322_date(std::int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  // The C locale's day and month names are the ones RFC 5322 wants.
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

// The body in canonical form (CRLF line ends, RFC 2045 §6.8), then base64 in lines.
std::string base64_body(std::string_view body) {
  std::string canonical;
  canonical.reserve(body.size() + body.size() / 32);
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\n' && (i == 0 || body[i - 1] != '\r')) canonical.push_back('\r');
    canonical.push_back(body[i]);
  }
  std::string encoded = crypto::base64(canonical);
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); i += kBase64LineLength)
    out.append(encoded, i, kBase64LineLength).append("\r\n");
  return out;
}

}  // namespace

std::string format_mail(const Mail& mail) {
  std::string out;
  out += "Date: " + rfc5322_date(mail.date) + "\r\n";
  out += "From: " + mailbox(mail.from_name, mail.from_address) + "\r\n";
  out += "To: <" + mail.to + ">\r\n";
  if (mail.reply_to) out += "Reply-To: <" + *mail.reply_to + ">\r\n";
  out += "Subject: " + header_text(mail.subject) + "\r\n";
  out += "Message-ID: <" + mail.message_id + ">\r\n";
  if (!mail.trace_id.empty()) out += "X-Trace-Id: " + mail.trace_id + "\r\n";
  out += "MIME-Version: 1.0\r\n";
  out += "Content-Type: text/plain; charset=UTF-8\r\n";
  out += "Content-Transfer-Encoding: base64\r\n";
  out += "\r\n";
  out += base64_body(mail.body);
  return out;
}

bool is_plain_address(std::string_view address) {
  auto at = address.find('@');
  if (at == 0 || at == std::string_view::npos || at + 1 >= address.size()) return false;
  if (address.find('@', at + 1) != std::string_view::npos) return false;
  for (char c : address) {
    if (!is_printable_ascii({&c, 1}) || c == ' ') return false;
    if (std::string_view("\"<>(),;:[]\\").find(c) != std::string_view::npos) return false;
  }
  return true;
}

}  // namespace storeapi::dispatch
