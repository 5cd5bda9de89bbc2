// Delivery over HTTPS: the receiver's certificate is always verified (chain and host name),
// against STOREAPI_WEBHOOK_CA_FILE when set, else the system's CAs. Certificates are made
// per test by a throwaway CA (support/test_certificates.hpp).
#include "dispatch_fixture.hpp"
#include "signature_check.hpp"
#include "support/test_certificates.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class Tls : public DispatchTest {
 protected:
  Settings trusting(const TestCertificates& certificates) const {
    Settings s = settings();
    s["STOREAPI_WEBHOOK_CA_FILE"] = certificates.ca_file();
    return s;
  }

  // Serves `served`'s certificate to a dispatcher with `dispatcher_settings` and checks
  // that the first attempt and its retry failed before any request was sent, with an error
  // like `error_like` (SQL ilike).
  void expect_refused_and_retried(const TestCertificates& served, const Settings& dispatcher_settings,
                                  const std::string& error_like) {
    WebhookReceiver receiver(served.server());
    add_endpoint(receiver.url());
    DispatcherProcess dispatcher(dispatcher_settings);
    std::string event = emit_order_event(3002);
    ASSERT_TRUE(eventually([&] { return std::stoi(value("select count(*) from webhook_delivery_attempts")) >= 2; }))
        << dispatcher.stderr_text();
    EXPECT_EQ(value("select string_agg(attempt || ':' || coalesce(response_status::text, 'no answer') || ':' ||"
                    " (error ilike '" + error_like + "'), ' ' order by attempt) from webhook_delivery_attempts"
                    " where attempt <= 2"),
              "1:no answer:true 2:no answer:true")
        << value("select error from webhook_delivery_attempts where attempt = 1");
    EXPECT_NE(dispatcher.stderr_text().find("attempt 1 failed ("), std::string::npos);
    EXPECT_NE(delivery_status(event), "succeeded");
    EXPECT_EQ(receiver.count(), 0u) << "a request got through an unverified connection";
    EXPECT_EQ(dispatcher.terminate(), 0);
  }
};

TEST_F(Tls, DeliversToAnEndpointWhoseCertificateTheConfiguredCaSigned) {
  TestCertificates certificates;
  WebhookReceiver receiver(certificates.server());
  ASSERT_EQ(receiver.url().rfind("https://127.0.0.1:", 0), 0u) << receiver.url();
  Endpoint endpoint = add_endpoint(receiver.url());
  DispatcherProcess dispatcher(trusting(certificates));
  std::string event = emit_order_event(3001);
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "succeeded"; }))
      << dispatcher.stderr_text() << value("select error from webhook_delivery_attempts where attempt = 1");
  EXPECT_EQ(dispatcher.terminate(), 0);

  auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].header("webhook-id"), event_name(event));
  EXPECT_TRUE(signed_with(requests[0], endpoint.secret));
  EXPECT_EQ(requests[0].body, value("select payload::text from events where id = '" + event + "'"));
  EXPECT_EQ(value("select attempt || ':' || response_status || ':' || response_excerpt || ':' || (error is null)"
                  " from webhook_delivery_attempts"),
            "1:200:ok:true");
}

TEST_F(Tls, WithoutTheCaSettingAPrivateCertificateIsRefusedAndTheDeliveryRetried) {
  TestCertificates certificates;
  // The system's CAs, which never signed it.
  expect_refused_and_retried(certificates, settings(), "%SSL certificate problem%");
}

TEST_F(Tls, OnlyTheConfiguredCaIsTrusted) {
  TestCertificates certificates, other;
  expect_refused_and_retried(certificates, trusting(other), "%SSL certificate problem%");
}

TEST_F(Tls, TheHostNameIsVerifiedToo) {
  TestCertificates localhost_only("DNS:localhost");  // a valid chain, but not for 127.0.0.1
  expect_refused_and_retried(localhost_only, trusting(localhost_only),
                             "%no alternative certificate subject name matches%");
}

TEST_F(Tls, AMissingCaFileStopsTheDispatcherAtStart) {
  Settings s = settings();
  s["STOREAPI_WEBHOOK_CA_FILE"] = "/nonexistent";
  DispatcherProcess dispatcher(s);
  EXPECT_EQ(dispatcher.wait_exit(10s), 2);
  EXPECT_EQ(dispatcher.stderr_text(),
            "storeapi-dispatch: STOREAPI_WEBHOOK_CA_FILE: cannot read '/nonexistent': No such file or directory\n");
}

}  // namespace
}  // namespace storeapi::testing
