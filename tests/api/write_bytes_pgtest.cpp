// What a write stores is the bytes it always stored, built with less work
// (docs/DECISIONS.md, "Writes: each document's bytes once"): an event's payload is its
// resource as the next read returns it and the old values as the general
// api.previous_attributes computes them from the documents before and after, byte for
// byte, whatever shortcut built it; it is stored compressed (lz4) in the row; a replay is
// the first answer's bytes. The product shortcut (api.product_previous_attributes) agrees
// with the general function on every document of the seeded store, and on documents of
// any other shape it leaves to it.
#include <gtest/gtest.h>

#include <string>

#include "seeded_server.hpp"

using namespace storeapi::testing;

namespace {

class WriteBytes : public SeededServerSuite {
 protected:
  // The newest event whose data.object is `id`: "<whether its payload is exactly the
  // envelope around `object_now` and api.previous_attributes(before, object_now)> <its
  // payload's compression> <the bytes of its partition's TOAST table>": nothing of an
  // event goes out of line (its trace id did, before every column was `main`).
  static std::string newest_event(const std::string& id, const std::string& before, const std::string& object_now) {
    return env->value(
        "select (e.payload::text = '{\"id\":\"evt_' || replace(e.id::text, '-', '') || '\",\"object\":\"event\","
        "\"type\":\"' || e.type || '\",\"created_at\":\"' || api.ts(e.created_at) || '\",\"store_id\":\"'"
        " || e.store_id || '\",\"data\":{\"object\":' || $2 || ',\"previous_attributes\":'"
        " || api.previous_attributes($3, $2) || '}}')::text || ' ' || coalesce(pg_column_compression(e.payload), '-')"
        " || ' ' || (select pg_relation_size(c.reltoastrelid) from pg_class c where c.oid = e.tableoid)"
        " from events e where e.payload->'data'->'object'->>'id' = $1 order by e.created_at desc, e.id limit 1",
        id, object_now, before);
  }
  // The resource as a read returns it (its stored document).
  static std::string read(const std::string& path) {
    HttpResponse res = env->request("GET", path);
    EXPECT_EQ(res.status, 200) << res.body;
    return res.body;
  }
};

}  // namespace

TEST_F(WriteBytes, AStockWritesEventIsTheProductAsReadWithItsOldValues) {
  const VariantRef v = env->live_variant(3);
  env->exec("update variants set stock = 50 where id = $1", v.variant);
  const std::string before = read("/v1/products/" + v.product);
  HttpResponse res = env->request("POST", v.path() + "/stock", R"({"mode":"adjust","quantity":-2})",
                                  {{"Idempotency-Key", "write-bytes-stock"}});
  ASSERT_EQ(res.status, 200) << res.body;
  const std::string after = read("/v1/products/" + v.product);
  ASSERT_NE(after, before);
  EXPECT_EQ(newest_event(v.product, before, after), "true lz4 0");
  // The replay is the first answer's bytes, and the product shows the variant as answered.
  HttpResponse replay = env->request("POST", v.path() + "/stock", R"({"mode":"adjust","quantity":-2})",
                                     {{"Idempotency-Key", "write-bytes-stock"}});
  ASSERT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(replay.body, res.body);
  EXPECT_NE(after.find(res.body), std::string::npos);
}

TEST_F(WriteBytes, APriceWriteThatMovesThePriceRangeKeepsItsOldValuesToo) {
  const VariantRef v = env->live_variant(5);
  const std::string before = read("/v1/products/" + v.product);
  // Far above any seeded price: the product's max_price moves with the variant.
  HttpResponse res = env->request("PATCH", v.path(), R"({"price":"99999.00"})");
  ASSERT_EQ(res.status, 200) << res.body;
  const std::string after = read("/v1/products/" + v.product);
  ASSERT_EQ(res.body, after);
  ASSERT_NE(Json(after).get("/max_price"), Json(before).get("/max_price"));
  EXPECT_EQ(newest_event(v.product, before, after), "true lz4 0");
}

TEST_F(WriteBytes, AnOrdersEventIsTheOrderAsReadWithItsOldValues) {
  const std::string order = env->value("select id from orders where store_id = $1 and fulfillment_status = 'pending'"
                                       " order by created_at, id limit 1", env->store().id);
  const std::string before = read("/v1/orders/" + order);
  HttpResponse res = env->request("POST", "/v1/orders/" + order + "/fulfillment",
                                  R"({"fulfillment_status":"processing","tracking_number":"TRK-1"})");
  ASSERT_EQ(res.status, 200) << res.body;
  const std::string after = read("/v1/orders/" + order);
  ASSERT_EQ(res.body, after);
  EXPECT_EQ(newest_event(order, before, after), "true lz4 0");
}

// A product's row above about 2 KB keeps its document compressed (lz4) in the row after a
// stock write, nothing of it out of line, and reads return the renderer's bytes.
TEST_F(WriteBytes, ALargeProductsDocumentIsStoredCompressedInTheRow) {
  const std::string row = env->value(
      "select v.product_id || ' ' || v.id from variants v join products p on p.store_id = v.store_id"
      " and p.id = v.product_id where v.store_id = $1 and v.deleted_at is null and p.deleted_at is null"
      " and v.stock is not null order by octet_length(p.doc) desc, v.id limit 1",
      env->store().id);
  const VariantRef v{row.substr(0, 36), row.substr(37)};
  // Images make sure of the size whatever the seed gave it (the row holds them twice: the
  // column and the document).
  env->exec("update products set images = images || array(select 'https://cdn.example.com/products/large-' || i"
            " || '.jpg' from generate_series(1, 12) i) where id = $1",
            v.product);
  ASSERT_GT(env->count("select octet_length(doc) from products where id = $1", v.product), 2100);
  env->exec("update variants set stock = 50 where id = $1", v.variant);
  HttpResponse res = env->request("POST", v.path() + "/stock", R"({"mode":"adjust","quantity":1})",
                                  {{"Idempotency-Key", "write-bytes-large-product"}});
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(env->value("select coalesce(pg_column_compression(p.doc), '-') || ' '"
                       " || (pg_column_size(p.doc) < octet_length(p.doc)) || ' '"
                       " || (select pg_relation_size(c.reltoastrelid) from pg_class c where c.oid = 'products'::regclass)"
                       " from products p where p.id = $1",
                       v.product),
            "lz4 true 0");
  const std::string after = read("/v1/products/" + v.product);
  EXPECT_EQ(after, env->value("select api.product_json(p) from products p where p.id = $1", v.product));
  EXPECT_NE(after.find(res.body), std::string::npos);
}

// Every product of the store, each changed as a variant write changes it (the variants and
// updated_at; the price range too; in the same millisecond) and as no variant write does
// (its slug; nothing at all), and documents of another shape: the shortcut's answer is the
// general function's, byte for byte.
TEST_F(WriteBytes, TheProductShortcutAgreesWithTheGeneralFunction) {
  const std::string cases =
      "with docs as (select p.doc as old, p.doc as same,"
      "    replace(left(p.doc, -27), ',\"low_stock_threshold\":', ',\"low_stock_threshold\":1')"
      "      || '\"2999-01-01T00:00:00.000Z\"}' as moved,"
      "    replace(p.doc, ',\"max_price\":\"', ',\"max_price\":\"1') as priced,"
      "    replace(replace(p.doc, ',\"min_price\":\"', ',\"min_price\":\"2'), ',\"low_stock_threshold\":', ',\"low_stock_threshold\":3')"
      "      as ranged,"
      "    replace(p.doc, '\"slug\":', '\"slug\":\"x\",\"was\":') as reslugged,"
      "    replace(p.doc, ',\"max_price\":', ',\"later\":1,\"max_price\":') as widened,"
      "    replace(p.doc, ',\"category_id\":', ',\"later\":1,\"category_id\":') as widened_after"
      "  from products p where p.store_id = $1),"
      " pairs as (select old, same as new from docs union all select old, moved from docs"
      "  union all select old, priced from docs union all select old, ranged from docs"
      "  union all select old, reslugged from docs union all select moved, old from docs"
      "  union all select old, widened from docs union all select old, widened_after from docs"
      "  union all select o.doc, p.doc from orders o, products p where o.store_id = $1 and p.store_id = $1"
      "    and o.id in (select id from orders where store_id = $1 order by created_at, id limit 2)"
      "    and p.id in (select id from products where store_id = $1 order by created_at, id limit 2)"
      "  union all select '{\"updated_at\":\"x\"}', '{\"updated_at\":\"y\"}')";
  EXPECT_GT(env->count(cases + " select count(*) from pairs where old <> new", env->store().id), 100);
  // Every product document is cut into its parts, and one with anything after its end is not.
  EXPECT_EQ(env->count("select count(*) from products where store_id = $1 and (api.product_doc_parts(doc) is null"
                       " or api.product_doc_parts(doc || ' ') is not null)",
                       env->store().id),
            0);
  EXPECT_EQ(env->count(cases + " select count(*) from pairs"
                               " where api.product_previous_attributes(old, new) is distinct from"
                               "       api.previous_attributes(old, new)",
                       env->store().id),
            0);
}
