#include "admin/stores/stock_history.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/stores/stores.hpp"
#include "common/uuid.hpp"

namespace storeapi::admin {

void write_stock_history(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                         const std::string& variant_id) {
  require_store(work, store_id);
  if (!is_uuid(variant_id) ||
      work.exec_params("select 1 from variants where store_id = $1 and id = $2", store_id, variant_id)
          .empty())
    throw CommandError("no variant with id '" + variant_id + "' in this store");
  auto rows = work.exec_params(
      "select id, variant_id, product_id, created_at, mode, quantity, delta, before, after, note,"
      " source, api_key_id"
      " from stock_movements where store_id = $1 and variant_id = $2"
      " order by created_at desc, id desc",
      store_id, variant_id);
  json.begin_object().field("object", "list").key("data").begin_array();
  for (const auto& r : rows) {
    json.begin_object()
        .field("object", "stock_movement")
        .field("id", r["id"].c_str())
        .field("variant_id", r["variant_id"].c_str())
        .field("product_id", r["product_id"].c_str())
        .field("created_at", timestamp(r["created_at"]))
        .field("mode", r["mode"].c_str())
        .field("quantity", r["quantity"].as<std::int64_t>())
        .field("delta", r["delta"].as<std::int64_t>())
        .field("before", optional_int(r["before"]))
        .field("after", r["after"].as<std::int64_t>())
        .field("note", optional_text(r["note"]))
        .field("source", r["source"].c_str())
        .field("api_key_id", optional_text(r["api_key_id"]))
        .end_object();
  }
  json.end_array().end_object();
}

}  // namespace storeapi::admin
