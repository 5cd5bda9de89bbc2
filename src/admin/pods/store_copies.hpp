#pragma once
// A pod's copies of its stores' directory rows (docs/DECISIONS.md, "Pods"): a pod other
// than main holds its stores' `stores` and `staff_members` rows, which the foreign keys of
// their data and the SQL renderers need. The directory's rows are the ones that count;
// the copies follow them wherever the admin tool changes them.
#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// Writes the store's `stores` row and its staff, as `directory_work` sees them, to the
// store's pod (nothing when that is main, the directory itself), committed there before
// the caller commits `directory_work`: a copy that fails (the pod down, the store being
// moved) fails the command, and the directory's change with it.
void copy_store_to_pod(pqxx::work& directory_work, const std::string& store_id);

}  // namespace storeapi::admin
