#include "dispatch/render.hpp"
#include "dispatch/templates.hpp"

#include <gtest/gtest.h>

namespace storeapi::dispatch {
namespace {

const StoreDetails kStore{"Fjord Goods", "https://fjord.example"};

constexpr const char* kShipped =
    R"({"order_number":1001,"fulfillment_status":"shipped","previous_fulfillment_status":"processing",)"
    R"("tracking_number":"TRK1","tracking_carrier":"DHL","customer_name":"Ann"})";

TEST(Render, FillsTheTemplateFromTheDataAndTheStore) {
  RenderedText text = render_notification("order_fulfillment_updated", "en", kShipped, kStore);
  EXPECT_EQ(text.subject, "Your order #1001 at Fjord Goods is shipped");
  EXPECT_EQ(text.body,
            "Hello Ann,\n\n"
            "your order #1001 at Fjord Goods is now shipped (it was being processed).\n\n"
            "Tracking number: TRK1 (DHL)\n\n"
            "Thank you for shopping with us.\nFjord Goods\nhttps://fjord.example\n");
}

TEST(Render, NullAndEmptyValuesSkipTheirSections) {
  RenderedText text = render_notification(
      "order_fulfillment_updated", "en",
      R"({"order_number":7,"fulfillment_status":"ready","previous_fulfillment_status":null,)"
      R"("tracking_number":null,"tracking_carrier":"","customer_name":"Bo"})",
      kStore);
  EXPECT_EQ(text.body,
            "Hello Bo,\n\nyour order #7 at Fjord Goods is now ready.\n\n"
            "Thank you for shopping with us.\nFjord Goods\nhttps://fjord.example\n");
}

TEST(Render, OptionalBookingLinesAppearOnlyWithTheirData) {
  std::string data = R"({"customer_name":"Cy","product_name":"Call","booking_date":"2026-12-02",)"
                     R"("booking_time":"09:00","timezone":"UTC","duration_minutes":30)";
  EXPECT_EQ(render_notification("booking_accepted", "en", data + "}", kStore).body,
            "Hello Cy,\n\nFjord Goods has accepted your booking:\n\nCall\n"
            "2026-12-02 at 09:00 (UTC), 30 minutes\n\nSee you then.\nFjord Goods\nhttps://fjord.example\n");
  EXPECT_EQ(render_notification("booking_accepted", "en", data + R"(,"meeting_link":"https://meet.example/c"})", kStore)
                .body,
            "Hello Cy,\n\nFjord Goods has accepted your booking:\n\nCall\n"
            "2026-12-02 at 09:00 (UTC), 30 minutes\nJoin: https://meet.example/c\n\n"
            "See you then.\nFjord Goods\nhttps://fjord.example\n");
}

TEST(Render, UsesTheLocaleThenItsLanguageThenEnglish) {
  EXPECT_EQ(render_notification("order_fulfillment_updated", "de", kShipped, kStore).subject,
            "Ihre Bestellung #1001 bei Fjord Goods: versandt");
  EXPECT_EQ(render_notification("order_fulfillment_updated", "de-CH", kShipped, kStore).subject,
            "Ihre Bestellung #1001 bei Fjord Goods: versandt");
  EXPECT_EQ(render_notification("order_fulfillment_updated", "nb", kShipped, kStore).subject,
            "Your order #1001 at Fjord Goods is shipped");
  EXPECT_EQ(find_template("fr", "booking_accepted").locale, &kEnglishTemplates);
}

TEST(Render, EveryTemplateExistsInEveryLocaleAndRenders) {
  for (const LocaleTemplates* locale : {&kEnglishTemplates, &kGermanTemplates}) {
    ASSERT_EQ(locale->templates.size(), kEnglishTemplates.templates.size()) << locale->locale;
    for (const auto& t : kEnglishTemplates.templates) {
      FoundTemplate found = find_template(locale->locale, t.name);
      EXPECT_EQ(found.locale, locale) << t.name;
      EXPECT_NO_THROW(render_notification(t.name, locale->locale, "{}", kStore)) << t.name;
    }
  }
}

TEST(Render, ArraysOfScalarsAreJoinedAndTheStoreNameMayBeGiven) {
  RenderedText text = render_notification(
      "api_key_created", "en",
      R"({"name":"ERP","prefix":"sk_live_abcd","scopes":["orders:read","products:write"],)"
      R"("expires_at":null,"created_by":"o@x.example","store_name":"Given Name"})",
      kStore);
  EXPECT_EQ(text.subject, "New API key \"ERP\" for Given Name");
  EXPECT_NE(text.body.find("Access:     orders:read, products:write\n"), std::string::npos) << text.body;
  EXPECT_NE(text.body.find("Expires:    never\n"), std::string::npos) << text.body;
}

TEST(Render, TheSubjectStaysOneLine) {
  RenderedText text = render_notification(
      "booking_accepted", "en", R"({"product_name":"Call\r\nBcc: victim@example.com"})", kStore);
  EXPECT_EQ(text.subject.find_first_of("\r\n"), std::string::npos) << text.subject;
}

TEST(Render, UnknownTemplatesAndBadDataCannotRender) {
  EXPECT_THROW(render_notification("no_such_template", "en", "{}", kStore), RenderError);
  EXPECT_THROW(render_notification("booking_accepted", "en", "[1]", kStore), RenderError);
  EXPECT_THROW(render_notification("booking_accepted", "en", "{", kStore), RenderError);
}

}  // namespace
}  // namespace storeapi::dispatch
