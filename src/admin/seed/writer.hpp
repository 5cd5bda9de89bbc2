#pragma once
// Copies generated seed rows into the database with COPY (pqxx::stream_to).
#include "admin/base/progress.hpp"
#include "admin/seed/model.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin::seed {

struct StoreInfo {
  std::string id, currency;
};

void write(pqxx::work& work, const StoreInfo& store, const SeedData& data, Progress& progress);

}  // namespace storeapi::admin::seed
