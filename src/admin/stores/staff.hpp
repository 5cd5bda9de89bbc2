#pragma once
// Staff members: dashboard users with per-resource access.
#include "admin/stores/access.hpp"
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// Inserts a staff member and returns their id. CommandError when the e-mail is already
// a staff member of the store.
std::string add_staff(pqxx::work& work, const std::string& store_id, const std::string& email,
                      const AccessLevels& access, bool is_owner = false);

struct StaffMember {
  std::string id;
  std::string email;
  AccessLevels access{};
};

// The staff member with that e-mail (case-insensitive), or the owner when `email` is
// empty. CommandError when there is none.
StaffMember find_staff(pqxx::work& work, const std::string& store_id, const std::string& email);

void write_staff(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                 const std::string& staff_id);

}  // namespace storeapi::admin
