// Prints every statement the server prepares as `PREPARE name AS sql;`, so psql can
// EXPLAIN exactly what the server runs (bench/explain/plans.sh).
#include <cstdio>

#include "api/statements.hpp"

int main() {
  for (const auto& statement : storeapi::api::statements()) {
    std::printf("prepare %s as %s;\n", statement.name, statement.sql);
  }
  return 0;
}
