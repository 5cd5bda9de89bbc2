// SMTP over STARTTLS (STOREAPI_SMTP_TLS=required) against loopback aiosmtpd sinks, one that
// offers STARTTLS with a throwaway certificate (support/test_certificates.hpp, trusted through
// STOREAPI_SMTP_CA_FILE) and one that does not. Seen failing: without CURLOPT_USE_SSL in
// Transfers::start(MailSend) the TLS sink refuses every mail (it takes none before
// STARTTLS) and the plain sink receives the mail in clear at the first attempt.
#include "dispatch_fixture.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kBookingData =
    R"({"customer_name":"Cy","product_name":"Call","booking_date":"2026-12-02","booking_time":"09:00","timezone":"UTC"})";

class SmtpTls : public DispatchTest {
 protected:
  Settings requiring_tls(const SmtpSink& sink, const TestCertificates& trusted) const {
    Settings s = settings();
    s["STOREAPI_SMTP_URL"] = sink.url();
    s["STOREAPI_SMTP_TLS"] = "required";
    s["STOREAPI_SMTP_CA_FILE"] = trusted.ca_file();
    // Room for several refused attempts before the mail would be given up.
    s["STOREAPI_WEBHOOK_RETRY_SCHEDULE"] = "1,1,1,1,1,1,1,1,1,1";
    return s;
  }

  std::string status_of(const std::string& id) {
    return value("select status || ',' || (attempts >= 2) from notifications where id = '" + id + "'");
  }
  std::string last_error(const std::string& id) {
    return value("select last_error from notifications where id = '" + id + "'");
  }

  // Queues a mail to a sink served `served`'s certificate (or no STARTTLS at all) and
  // checks that two attempts failed with `error_part` and nothing arrived.
  std::string expect_refused_twice(const SmtpSink& sink, const TestCertificates& trusted, const std::string& error_part) {
    DispatcherProcess dispatcher(requiring_tls(sink, trusted));
    std::string id = queue_notification("customer", "booking_canceled", "cy@example.com", kBookingData);
    EXPECT_TRUE(eventually([&] { return status_of(id) == "pending,true"; })) << dispatcher.stderr_text();
    EXPECT_NE(last_error(id).find(error_part), std::string::npos) << last_error(id);
    EXPECT_EQ(sink.messages().size(), 0u) << "a mail went out without verified TLS";
    EXPECT_EQ(dispatcher.terminate(), 0);
    return id;
  }
};

TEST_F(SmtpTls, RequiredSendsOverStartTlsToAVerifiedRelay) {
  TestCertificates certificates;
  SmtpSink sink(0, certificates.server());
  DispatcherProcess dispatcher(requiring_tls(sink, certificates));
  std::string id = queue_notification("customer", "booking_canceled", "cy@example.com", kBookingData);
  ASSERT_TRUE(eventually([&] { return sink.messages().size() == 1; }))
      << dispatcher.stderr_text() << last_error(id);
  EXPECT_EQ(dispatcher.terminate(), 0);
  auto message = parser_.parse(sink.messages()[0]).value();
  EXPECT_TRUE(bool(message["tls"])) << sink.messages()[0];
  EXPECT_EQ(std::string_view(message["rcpt_tos"].at(0)), "cy@example.com");
  EXPECT_EQ(value("select status from notifications where id = '" + id + "'"), "sent");
}

TEST_F(SmtpTls, RequiredRefusesARelayWithoutStartTlsAndTheMailWaitsForALaterAttempt) {
  TestCertificates certificates;
  SmtpSink plain;
  std::string id = expect_refused_twice(plain, certificates, "STARTTLS");
  // Nothing lost: the mail is still queued, and goes out once TLS is no longer demanded.
  Settings in_clear = requiring_tls(plain, certificates);
  in_clear["STOREAPI_SMTP_TLS"] = "off";
  DispatcherProcess dispatcher(in_clear);
  ASSERT_TRUE(eventually([&] { return plain.messages().size() == 1; }, 15s)) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_FALSE(bool(parser_.parse(plain.messages()[0]).value()["tls"]));
  EXPECT_EQ(value("select status from notifications where id = '" + id + "'"), "sent");
}

TEST_F(SmtpTls, TheRelaysCertificateAndHostNameAreVerified) {
  TestCertificates certificates, other;
  SmtpSink untrusted(0, certificates.server());
  expect_refused_twice(untrusted, other, "SSL certificate problem");
  TestCertificates localhost_only("DNS:localhost");  // a valid chain, but not for 127.0.0.1
  SmtpSink misnamed(0, localhost_only.server());
  expect_refused_twice(misnamed, localhost_only, "no alternative certificate subject name matches");
}

}  // namespace
}  // namespace storeapi::testing
