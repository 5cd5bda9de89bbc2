#include "admin/staff.hpp"

#include "admin/database.hpp"
#include "admin/errors.hpp"

namespace storeapi::admin {
namespace {

constexpr const char* kAccessColumns = "orders_access, bookings_access, products_access, customers_access";

// The four access columns starting at `first`, in kResources order.
AccessLevels access_from(const pqxx::row& row, int first) {
  AccessLevels levels{};
  for (std::size_t i = 0; i < levels.size(); ++i) levels[i] = level_named(row[first + static_cast<int>(i)].c_str()).value_or(Level::none);
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
  return row[0].c_str();
}

StaffMember find_staff(pqxx::work& work, const std::string& store_id, const std::string& email) {
  auto rows = work.exec_params(
      std::string("select id, email, ") + kAccessColumns +
          " from staff_members where store_id = $1"
          " and (case when $2 = '' then is_owner else lower(email) = lower($2) end)",
      store_id, email);
  if (rows.empty()) throw CommandError("no staff member '" + email + "' in this store");
  return StaffMember{rows[0][0].c_str(), rows[0][1].c_str(), access_from(rows[0], 2)};
}

void write_staff(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                 const std::string& staff_id) {
  auto r = work.exec_params1(std::string("select id, store_id, email, is_owner, created_at, ") +
                                 kAccessColumns + " from staff_members where store_id = $1 and id = $2",
                             store_id, staff_id);
  json.begin_object()
      .field("object", "staff_member")
      .field("id", r[0].c_str())
      .field("store_id", r[1].c_str())
      .field("email", r[2].c_str())
      .field("is_owner", r[3].as<bool>())
      .field("created_at", timestamp(r[4]));
  json.key("access").begin_object();
  AccessLevels access = access_from(r, 5);
  for (std::size_t i = 0; i < kResources.size(); ++i) json.field(kResources[i], level_name(access[i]));
  json.end_object().end_object();
}

}  // namespace storeapi::admin
