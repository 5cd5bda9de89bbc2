#pragma once
// A resource's two read endpoints, GET /v1/<resource> and GET /v1/<resource>/{id}, made
// from its table and ListSpec: what differs between resources is only the spec (its
// route and filters), which each resource's file defines (orders_endpoints.cpp, ...).
#include <string_view>

#include "api/routing/context.hpp"
#include "api/lists/list_params.hpp"
#include "api/lists/list_sql.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

class ResourceReads {
 public:
  // `table` as for ReadStatements; the filters `spec` points to must outlive this (static).
  ResourceReads(std::string_view table, const ListSpec& spec) : spec_(spec), statements_(table, spec) {}

  runtime::task<void> list(Context& ctx) const;
  runtime::task<void> get(Context& ctx) const;
  const ReadStatements& statements() const { return statements_; }

 private:
  ListSpec spec_;
  ReadStatements statements_;
};

}  // namespace storeapi::api
