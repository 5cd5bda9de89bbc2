#include "admin/stores/staff.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"

namespace storeapi::admin {
namespace {

constexpr const char* kAccessColumns = "orders_access, bookings_access, products_access, customers_access";

// The four access columns (kAccessColumns: "<resource>_access"), in kResources order.
AccessLevels access_from(const pqxx::row& row) {
  AccessLevels levels{};
  for (std::size_t i = 0; i < levels.size(); ++i)
    levels[i] = level_named(row[std::string(kResources[i]) + "_access"].c_str()).value_or(Level::none);
  return levels;
}

}  // namespace

std::string add_staff(pqxx::work& work, const std::string& store_id, const std::string& email,
                      const AccessLevels& access, bool is_owner) {
  if (!work.exec_params("select 1 from staff_members where store_id = $1 and lower(email) = lower($2)",
                        store_id, email)
           .empty())
    throw CommandError("'" + email + "' is already a staff member of this store");
  auto row = work.exec_params1(
      std::string("insert into staff_members (store_id, email, is_owner, ") + kAccessColumns +
          ") values ($1, $2, $3, $4, $5, $6, $7) returning id",
      store_id, email, is_owner, std::string(level_name(access[0])),
      std::string(level_name(access[1])), std::string(level_name(access[2])),
      std::string(level_name(access[3])));
  return row["id"].c_str();
}

StaffMember find_staff(pqxx::work& work, const std::string& store_id, const std::string& email) {
  auto rows = work.exec_params(
      std::string("select id, email, ") + kAccessColumns +
          " from staff_members where store_id = $1"
          " and (case when $2 = '' then is_owner else lower(email) = lower($2) end)",
      store_id, email);
  if (rows.empty()) throw CommandError("no staff member '" + email + "' in this store");
  return StaffMember{rows[0]["id"].c_str(), rows[0]["email"].c_str(), access_from(rows[0])};
}

void write_staff(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                 const std::string& staff_id) {
  auto r = work.exec_params1(std::string("select id, store_id, email, is_owner, created_at, ") +
                                 kAccessColumns + " from staff_members where store_id = $1 and id = $2",
                             store_id, staff_id);
  json.begin_object()
      .field("object", "staff_member")
      .field("id", r["id"].c_str())
      .field("store_id", r["store_id"].c_str())
      .field("email", r["email"].c_str())
      .field("is_owner", r["is_owner"].as<bool>())
      .field("created_at", timestamp(r["created_at"]));
  json.key("access").begin_object();
  AccessLevels access = access_from(r);
  for (std::size_t i = 0; i < kResources.size(); ++i) json.field(kResources[i], level_name(access[i]));
  json.end_object().end_object();
}

}  // namespace storeapi::admin
