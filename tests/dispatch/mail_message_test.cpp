#include "dispatch/mail_message.hpp"

#include "common/crypto.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace storeapi::dispatch {
namespace {

Mail sample() {
  Mail mail;
  mail.from_name = "Fjord \"Goods\"";
  mail.from_address = "no-reply@fjord.example";
  mail.to = "ann@example.com";
  mail.reply_to = "owner@fjord.example";
  mail.subject = "Your order #1001 is shipped";
  mail.message_id = "notification-1@fjord.example";
  mail.date = 1795301819;  // 2026-11-21T22:56:59Z, a Saturday
  mail.body = "Hello Ann,\n\nline two\n";
  return mail;
}

std::string header_block(const std::string& message) { return message.substr(0, message.find("\r\n\r\n") + 2); }

std::string decoded_body(const std::string& message) {
  std::string encoded;
  for (char c : message.substr(message.find("\r\n\r\n") + 4))
    if (c != '\r' && c != '\n') encoded.push_back(c);
  return crypto::base64_decode(encoded).value_or("(not base64)");
}

TEST(MailMessage, HasTheHeadersAndABase64BodyInCanonicalForm) {
  std::string message = format_mail(sample());
  std::string headers = header_block(message);
  EXPECT_EQ(headers,
            "Date: Sat, 21 Nov 2026 22:56:59 +0000\r\n"
            "From: \"Fjord \\\"Goods\\\"\" <no-reply@fjord.example>\r\n"
            "To: <ann@example.com>\r\n"
            "Reply-To: <owner@fjord.example>\r\n"
            "Subject: Your order #1001 is shipped\r\n"
            "Message-ID: <notification-1@fjord.example>\r\n"
            "MIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=UTF-8\r\n"
            "Content-Transfer-Encoding: base64\r\n");
  EXPECT_EQ(decoded_body(message), "Hello Ann,\r\n\r\nline two\r\n");
}

TEST(MailMessage, NamesTheRequestsTraceWhenKnown) {
  Mail mail = sample();
  mail.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  EXPECT_NE(header_block(format_mail(mail)).find("\r\nX-Trace-Id: 4bf92f3577b34da6a3ce929d0e0e4736\r\n"),
            std::string::npos);
  EXPECT_EQ(header_block(format_mail(sample())).find("X-Trace-Id"), std::string::npos);
}

TEST(MailMessage, EncodesNonAsciiHeadersInShortWordsAndWrapsTheBody) {
  Mail mail = sample();
  mail.from_name = "Wären & Söhne";
  mail.subject = "Ihre Bestellung bei Wären & Söhne: versandt – Sendungsnummer 123456789";
  mail.body = std::string(3000, 'x') + "\nÄ\n";
  std::string message = format_mail(mail);
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 78u) << line;
  EXPECT_NE(message.find("From: =?UTF-8?B?" + crypto::base64("Wären & Söhne") + "?= <no-reply@fjord.example>"),
            std::string::npos);
  // The subject's words decode back to the subject, split only between characters.
  std::string subject_lines = message.substr(message.find("Subject: ") + 9);
  subject_lines = subject_lines.substr(0, subject_lines.find("\r\nMessage-ID"));
  std::string decoded;
  std::istringstream words(subject_lines);
  for (std::string word; words >> word;) {
    ASSERT_EQ(word.rfind("=?UTF-8?B?", 0), 0u) << word;
    auto part = crypto::base64_decode(word.substr(10, word.size() - 12));
    ASSERT_TRUE(part) << word;
    decoded += *part;
  }
  EXPECT_EQ(decoded, mail.subject);
  EXPECT_EQ(decoded_body(message), std::string(3000, 'x') + "\r\nÄ\r\n");
}

TEST(MailMessage, PlainAddressesOnly) {
  EXPECT_TRUE(is_plain_address("ann.lee+shop@example.co.uk"));
  for (const char* bad : {"", "ann", "@example.com", "ann@", "a@b@c", "ann lee@example.com", "ann@example.com\r\nBcc: x@y",
                          "<ann@example.com>", "\"ann\"@example.com", "ann@exa,mple.com", "änn@example.com"})
    EXPECT_FALSE(is_plain_address(bad)) << bad;
}

}  // namespace
}  // namespace storeapi::dispatch
