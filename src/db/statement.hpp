#pragma once
// A prepared statement: every pooled connection prepares every registered statement when
// it connects, so requests only ever send Bind/Execute.
namespace storeapi::db {

struct Statement {
  const char* name;
  const char* sql;
  int param_count;
};

}  // namespace storeapi::db
