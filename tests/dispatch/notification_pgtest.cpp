// E-mail notifications through SMTP (an aiosmtpd sink on loopback; Python's e-mail parser
// decodes what arrives): templates per locale, headers, retries, waiting without SMTP.
#include "dispatch_fixture.hpp"
#include "support/metrics_scrape.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class MailTest : public DispatchTest {
 protected:
  Settings with_smtp(const SmtpSink& sink) const {
    Settings s = settings();
    s["STOREAPI_SMTP_URL"] = sink.url();
    return s;
  }

  std::string status_of(const std::string& id) {
    return value("select status || ',' || attempts from notifications where id = '" + id + "'");
  }

  std::string header(simdjson::dom::element message, const char* name) {
    return std::string(std::string_view(message["headers"][name]));
  }
};

constexpr const char* kFulfillmentData =
    R"({"order_number":1001,"fulfillment_status":"shipped","previous_fulfillment_status":"processing",)"
    R"("tracking_number":"TRK1001","tracking_carrier":"DHL","customer_name":"Anna Groß"})";

TEST_F(MailTest, SendsTheCustomerMailInTheStoreLocale) {
  value("update stores set locale = 'de', name = 'Fjord Wären' returning 1");
  SmtpSink sink;
  DispatcherProcess dispatcher(with_smtp(sink));
  std::string id = queue_notification("customer", "order_fulfillment_updated", "anna@example.com", kFulfillmentData);
  ASSERT_TRUE(eventually([&] { return sink.messages().size() == 1; })) << dispatcher.stderr_text();
  EXPECT_TRUE(eventually([&] {
    return metric_value(scrape_metrics(dispatcher.metrics_port()), R"(storeapi_dispatch_emails_total{result="sent"})") == 1;
  }));
  EXPECT_EQ(dispatcher.terminate(), 0);

  auto message = parser_.parse(sink.messages()[0]).value();
  std::string host = store_.slug + ".example.com";  // the test store's URL is https://<slug>.example.com
  EXPECT_EQ(std::string_view(message["mail_from"]), "no-reply@" + host);
  EXPECT_EQ(std::string_view(message["rcpt_tos"].at(0)), "anna@example.com");
  EXPECT_EQ(header(message, "subject"), "Ihre Bestellung #1001 bei Fjord Wären: versandt");
  EXPECT_EQ(header(message, "from"), "Fjord Wären <no-reply@" + host + ">");
  EXPECT_EQ(header(message, "to"), "anna@example.com");
  EXPECT_EQ(header(message, "reply-to"), store_.owner_email);
  EXPECT_EQ(header(message, "message-id"), "<notification-" + id + "@" + host + ">");
  EXPECT_FALSE(header(message, "date").empty());
  EXPECT_EQ(std::string_view(message["content_type"]), "text/plain");
  EXPECT_EQ(std::string_view(message["charset"]), "utf-8");
  std::string body{std::string_view(message["body"])};
  EXPECT_NE(body.find("Hallo Anna Groß,"), std::string::npos) << body;
  EXPECT_NE(body.find("ist jetzt versandt (zuvor: in Bearbeitung)."), std::string::npos) << body;
  EXPECT_NE(body.find("Sendungsnummer: TRK1001 (DHL)"), std::string::npos) << body;
  EXPECT_EQ(status_of(id), "sent,1");
  EXPECT_EQ(value("select sent_at is not null and last_error is null from notifications"), "t");
}

TEST_F(MailTest, OwnerMailOnKeyCreationFallsBackToEnglishAndUsesTheConfiguredSender) {
  value("update stores set locale = 'fr' returning 1");
  SmtpSink sink;
  Settings s = with_smtp(sink);
  s["STOREAPI_SMTP_FROM"] = "alerts@storeapi.example";
  DispatcherProcess dispatcher(s);
  TestKey key = db_->create_key(store_.id);  // as storeapi-admin key create: queues the owner's mail
  ASSERT_TRUE(eventually([&] { return sink.messages().size() == 1; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);

  auto message = parser_.parse(sink.messages()[0]).value();
  EXPECT_EQ(std::string_view(message["mail_from"]), "alerts@storeapi.example");
  EXPECT_EQ(std::string_view(message["rcpt_tos"].at(0)), store_.owner_email);
  EXPECT_EQ(header(message, "subject"), "New API key \"test key\" for Test store " + store_.slug);
  EXPECT_EQ(message["headers"]["reply-to"].error(), simdjson::NO_SUCH_FIELD) << "owners need no Reply-To";
  std::string body{std::string_view(message["body"])};
  EXPECT_NE(body.find("Key:        " + key.key.substr(0, 12) + "..."), std::string::npos) << body;
  EXPECT_NE(body.find("Expires:    never"), std::string::npos) << body;
  EXPECT_NE(body.find("Created by: " + store_.owner_email), std::string::npos) << body;
  EXPECT_EQ(body.find(key.key), std::string::npos) << "the full key must never be mailed";
}

TEST_F(MailTest, BookingMailsUseTheLanguageOfARegionalLocale) {
  value("update stores set locale = 'de-AT' returning 1");
  SmtpSink sink;
  DispatcherProcess dispatcher(with_smtp(sink));
  queue_notification("customer", "booking_accepted", "ben@example.com",
        R"({"customer_name":"Ben","product_name":"Beratung","booking_date":"2026-12-01","booking_time":"14:30",)"
        R"("timezone":"Europe/Vienna","duration_minutes":45,"meeting_method":"video","meeting_link":"https://meet.example/x"})");
  ASSERT_TRUE(eventually([&] { return sink.messages().size() == 1; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  auto message = parser_.parse(sink.messages()[0]).value();
  EXPECT_EQ(header(message, "subject"), "Ihre Buchung für Beratung ist bestätigt");
  std::string body{std::string_view(message["body"])};
  EXPECT_NE(body.find("2026-12-01 um 14:30 (Europe/Vienna), 45 Minuten"), std::string::npos) << body;
  EXPECT_NE(body.find("Teilnehmen: https://meet.example/x"), std::string::npos) << body;
}

TEST_F(MailTest, RetriesWhenTheMailServerRefusesForNow) {
  SmtpSink sink(/*refuse=*/1);
  DispatcherProcess dispatcher(with_smtp(sink));
  std::string id = queue_notification("customer", "booking_canceled", "cy@example.com",
                                      R"({"customer_name":"Cy","product_name":"Call","booking_date":"2026-12-02",)"
                                      R"("booking_time":"09:00","timezone":"UTC"})");
  ASSERT_TRUE(eventually([&] { return status_of(id) == "sent,2"; })) << dispatcher.stderr_text();
  const std::string m = scrape_metrics(dispatcher.metrics_port());
  EXPECT_EQ(metric_value(m, R"(storeapi_dispatch_emails_total{result="failed"})"), 1) << m;
  EXPECT_EQ(metric_value(m, R"(storeapi_dispatch_emails_total{result="sent"})"), 1) << m;
  EXPECT_EQ(dispatcher.terminate(), 0);
  ASSERT_EQ(sink.messages().size(), 1u);
  EXPECT_NE(dispatcher.stderr_text().find("(SMTP 451)"), std::string::npos) << dispatcher.stderr_text();
}

TEST_F(MailTest, WithoutAnSmtpUrlMailWaitsAndTheLogSaysSoOnce) {
  WebhookReceiver receiver;
  add_endpoint(receiver.url());
  std::string id;
  {
    DispatcherProcess without(settings());
    id = queue_notification("customer", "order_fulfillment_updated", "anna@example.com", kFulfillmentData);
    emit_order_event(4001);
    ASSERT_TRUE(receiver.wait_for_count(1, 30s));  // the dispatcher is at work, webhooks go out
    EXPECT_EQ(status_of(id), "pending,0");
    EXPECT_EQ(without.terminate(), 0);
    std::string log = without.stderr_text();
    auto first = log.find("STOREAPI_SMTP_URL is not set");
    ASSERT_NE(first, std::string::npos) << log;
    EXPECT_EQ(log.find("STOREAPI_SMTP_URL is not set", first + 1), std::string::npos) << log;
  }
  SmtpSink sink;
  DispatcherProcess with(with_smtp(sink));
  ASSERT_TRUE(eventually([&] { return status_of(id) == "sent,1"; })) << with.stderr_text();
  EXPECT_EQ(with.terminate(), 0);
}

TEST_F(MailTest, AnUnknownTemplateFailsAtOnce) {
  SmtpSink sink;
  DispatcherProcess dispatcher(with_smtp(sink));
  std::string id = queue_notification("customer", "no_such_template", "dee@example.com", "{}");
  ASSERT_TRUE(eventually([&] { return status_of(id) == "failed,1"; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_NE(value("select last_error from notifications").find("no template"), std::string::npos);
  EXPECT_TRUE(sink.messages().empty());
}

}  // namespace
}  // namespace storeapi::testing
