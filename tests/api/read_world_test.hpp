#pragma once
// The base of every read-endpoint test suite: one ReadWorld for the whole suite (set up
// with the suite's seeds, torn down after its last test) and shorthands for it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "read_world.hpp"

namespace storeapi::testing {

class ReadWorldTest : public ::testing::Test {
 protected:
  // Call from the suite's SetUpTestSuite / TearDownTestSuite.
  static void start(const std::vector<std::vector<std::string>>& seeds) { world_ = new ReadWorld(seeds); }
  static void stop() {
    delete world_;
    world_ = nullptr;
  }

  static ReadWorld& world() { return *world_; }
  static const std::string& store(std::size_t i = 0) { return world_->store(i).id; }
  static Api api(std::size_t i = 0) { return Api(world_->port(), world_->store(i).key); }

  // The ids of `table`'s rows of store 0 matching `where`, in the list's order.
  static std::vector<std::string> expected(const std::string& table, const std::string& where, bool ascending) {
    const std::string dir = ascending ? "" : " desc";
    return world().column("select id from " + table + " where store_id = '" + store() + "' and (" + where +
                          ") order by created_at" + dir + ", id" + dir);
  }

 private:
  static inline ReadWorld* world_ = nullptr;
};

}  // namespace storeapi::testing
