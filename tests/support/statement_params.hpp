#pragma once
// Parameters for a test's own statements, declared by count only: the pool and
// db::parameter_mismatch look at how many a statement takes, and PostgreSQL infers their
// types from the SQL. (The server's statements declare names and types, checked against
// PostgreSQL by tests/api/statement_columns_pgtest.cpp.)
#include <cstddef>
#include <span>

#include "db/statement.hpp"

namespace storeapi::testing {

inline std::span<const db::Column> untyped_params(std::size_t count) {
  static constexpr db::Column kParams[] = {{"p1", db::Type::text}, {"p2", db::Type::text}, {"p3", db::Type::text},
                                           {"p4", db::Type::text}, {"p5", db::Type::text}, {"p6", db::Type::text},
                                           {"p7", db::Type::text}, {"p8", db::Type::text}, {"p9", db::Type::text},
                                           {"p10", db::Type::text}};
  return {kParams, count};
}

}  // namespace storeapi::testing
