// JSON writing of an order-sized document, body validation of a typical PATCH, and
// error rendering.
#include "api/errors.hpp"
#include "json/body.hpp"
#include "json/writer.hpp"

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <array>
#include <string>

using namespace storeapi;

namespace {

void write_address(json::Writer& w, std::string_view line2) {
  w.begin_object()
      .key("first_name").string("Zoë")
      .key("last_name").string("Fernández")
      .key("phone").string("+34 612 345 678")
      .key("line1").string("Calle de Alcalá 48, 3º izquierda")
      .key("line2");
  line2.empty() ? w.null() : w.string(line2);
  w.key("city").string("Madrid")
      .key("state").string("Comunidad de Madrid")
      .key("postal_code").string("28014")
      .key("country").string("Spain")
      .key("country_code").string("ES")
      .end_object();
}

void write_line_item(json::Writer& w, std::string_view id, std::string_view name, std::int64_t quantity) {
  w.begin_object()
      .key("id").string(id)
      .key("product_id").string("5d2c7f0e-8a41-4b8e-9f3a-0c6e1d2b3a4f")
      .key("product_name").string(name)
      .key("variant_id").string("9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4")
      .key("variant_title").string("Large / \"Midnight\" blue")
      .key("quantity").integer(quantity)
      .key("unit_price").string("149.00")
      .key("unit_discount").string("14.90")
      .key("total").string("402.60")
      .end_object();
}

// An order as the API shows it: customer, two addresses, three line items (about 2 KB).
void write_order(std::string& out) {
  json::Writer w(out);
  w.begin_object()
      .key("id").string("0b5e7a3c-1f2d-4c8e-9a6b-3d2f1e0c9b8a")
      .key("object").string("order")
      .key("order_number").integer(100234)
      .key("status").string("captured")
      .key("fulfillment_status").string("processing")
      .key("channel").string("storefront")
      .key("currency").string("EUR")
      .key("subtotal").string("1207.80")
      .key("shipping_total").string("9.90")
      .key("tax_total").string("253.64")
      .key("total").string("1471.34")
      .key("payment_method").string("card")
      .key("payment_gateway").string("stripe")
      .key("paid_at").string("2026-11-21T20:39:02.123Z")
      .key("tracking_number").null()
      .key("tracking_carrier").null()
      .key("customer").begin_object()
      .key("id").string("3f2e1d0c-9b8a-4776-a554-433221100fed")
      .key("name").string("Zoë Fernández")
      .key("email").string("zoe.fernandez@example.com")
      .key("phone").string("+34 612 345 678")
      .end_object();
  w.key("billing_address");
  write_address(w, "");
  w.key("shipping_address");
  write_address(w, "Portal B, escalera 2");
  w.key("line_items").begin_array();
  write_line_item(w, "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "Hand-thrown stoneware mug", 3);
  write_line_item(w, "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e", "Linen tea towel\tset of 2", 1);
  write_line_item(w, "c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f", "Café blend, 1 kg — whole beans", 2);
  w.end_array()
      .key("created_at").string("2026-11-21T20:38:55.017Z")
      .key("updated_at").string("2026-11-21T20:41:12.480Z")
      .end_object();
}

void BM_WriteOrder(benchmark::State& state) {
  std::string out;
  for (auto _ : state) {
    out.clear();  // the buffer is reused, as a connection's response buffer is
    write_order(out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["bytes"] = static_cast<double>(out.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_WriteOrder);

constexpr std::string_view patch_body = R"({"price":"149.00","discount_type":"percentage","discount_value":"10.00"})";
constexpr std::array<json::Field, 3> variant_fields{{
    {"price", json::FieldType::string},
    {"discount_type", json::FieldType::string_or_null},
    {"discount_value", json::FieldType::string},
}};

// `readable` tells whether simdjson's padding is available after the body in the caller's
// buffer (parsed in place) or not (copied first).
void BM_ParsePatchBody(benchmark::State& state) {
  const bool padded = state.range(0) != 0;
  json::BodyParser parser;
  std::array<json::FieldValue, 3> values;
  json::BodyTexts texts;
  const std::string buffer = std::string(patch_body) + std::string(simdjson::SIMDJSON_PADDING, ' ');
  const std::string_view body(buffer.data(), patch_body.size());
  const std::size_t readable = padded ? buffer.size() : body.size();
  for (auto _ : state) {
    json::BodyResult result = parser.parse(body, readable, variant_fields, values, texts);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(values);
  }
}
BENCHMARK(BM_ParsePatchBody)->ArgName("in_place")->Arg(1)->Arg(0);

void BM_RenderError(benchmark::State& state) {
  std::string out;
  for (auto _ : state) {
    out.clear();
    api::render_error(out, api::ErrorCode::parameter_invalid, "limit", {}, "req_7f3e2d1c0b9a48879e8d7c6b");
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_RenderError);

}  // namespace
