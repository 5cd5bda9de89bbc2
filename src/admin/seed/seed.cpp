#include "admin/seed/seed.hpp"

#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/base/progress.hpp"
#include "admin/seed/generator.hpp"
#include "admin/seed/writer.hpp"
#include "admin/stores/stores.hpp"

#include <chrono>

namespace storeapi::admin {

void seed_store(JsonWriter& json, pqxx::work& work, const std::string& store_id, const seed::SeedSizes& sizes) {
  auto started = std::chrono::steady_clock::now();
  require_store(work, store_id, true);  // two seeds of one store wait for each other
  claim_store_write(work, store_id);
  auto store = work.exec_params1(
      "select currency, locale,"
      " exists (select 1 from categories where store_id = $1)"
      " or exists (select 1 from products where store_id = $1)"
      " or exists (select 1 from customers where store_id = $1)"
      " or exists (select 1 from orders where store_id = $1)"
      " or exists (select 1 from bookings where store_id = $1) as has_data"
      " from stores where id = $1",
      store_id);
  if (store["has_data"].as<bool>())
    throw CommandError("store '" + store_id + "' already has data; seed fills only an empty store");

  seed::SeedData data = seed::generate(store_id, store["locale"].c_str(), sizes);
  {
    Progress progress("seed");
    seed::write(work, {store_id, store["currency"].c_str()}, data, progress);
  }
  // A write of the store like the API's: the servers record its position before this
  // command returns, so no read of the store is sent to a standby that lacks the data.
  notify_store_changed(work, store_id);

  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  json.begin_object()
      .field("object", "seed")
      .field("store_id", store_id)
      .field("categories", static_cast<std::int64_t>(data.categories.size()))
      .field("products", static_cast<std::int64_t>(data.products.size()))
      .field("variants", static_cast<std::int64_t>(data.variants.size()))
      .field("customers", static_cast<std::int64_t>(data.customers.size()))
      .field("orders", static_cast<std::int64_t>(data.orders.size()))
      .field("line_items", static_cast<std::int64_t>(data.line_items.size()))
      .field("bookings", static_cast<std::int64_t>(data.bookings.size()))
      .field("stock_movements", static_cast<std::int64_t>(data.stock_movements.size()))
      .field("seconds", seconds)
      .end_object();
}

}  // namespace storeapi::admin
