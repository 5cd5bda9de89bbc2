#pragma once
// `storeapi-admin seed`: fills an empty store with deterministic demo data.
#include "admin/base/json.hpp"
#include "admin/seed/model.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// Refuses (CommandError) a store that already holds catalog, customer, order or booking
// rows: seeding twice would duplicate the deterministic data. Writes a summary with the
// row counts and the seconds taken.
void seed_store(JsonWriter& json, pqxx::work& work, const std::string& store_id, const seed::SeedSizes& sizes);

}  // namespace storeapi::admin
