#pragma once
// The runtime role `storeapi` (docs/DEPLOY.md "Database roles"), made by tools/dev-db and
// ThrowawayCluster on the test clusters: what the API servers and dispatchers a test
// starts connect as (STOREAPI_DATABASE_URL), and what a pod's row in `pods` names, so a
// grant the role lacks fails the test. The test itself, and storeapi-admin, connect as
// the cluster's superuser (TestDatabase::url), who made and migrated the database.
#include "admin/base/database.hpp"
#include "admin/migrations/roles.hpp"
#include "support/test_database.hpp"

#include <string>

namespace storeapi::testing {

inline std::string api_url(const TestDatabase& db) { return admin::as_user(db.url(), admin::kRuntimeRole); }

}  // namespace storeapi::testing
