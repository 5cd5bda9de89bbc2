// The bounded map behind each core's key cache (auth/lru_map.hpp): when full it drops the
// least recently used entry, a lookup or an update making an entry the most recent; erase,
// erase_if and clear keep the order of what stays. Fails without the move to the front in
// find() (ALookupKeepsAnEntry) or with the eviction of anything but the list's tail.
#include "auth/lru_map.hpp"

#include <gtest/gtest.h>

#include <string>

namespace storeapi::auth {
namespace {

using Map = LruMap<int, std::string, std::hash<int>>;

TEST(LruMap, DropsTheLeastRecentlyUsedWhenFull) {
  Map map(3);
  map.put(1, "one");
  map.put(2, "two");
  map.put(3, "three");
  map.put(4, "four");
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.find(1), nullptr);
  ASSERT_NE(map.find(2), nullptr);
  EXPECT_EQ(*map.find(4), "four");
}

TEST(LruMap, ALookupKeepsAnEntry) {
  Map map(3);
  map.put(1, "one");
  map.put(2, "two");
  map.put(3, "three");
  ASSERT_NE(map.find(1), nullptr);  // 2 is now the least recently used
  map.put(4, "four");
  EXPECT_NE(map.find(1), nullptr);
  EXPECT_EQ(map.find(2), nullptr);
}

TEST(LruMap, AnUpdateReplacesTheValueAndKeepsTheEntry) {
  Map map(2);
  map.put(1, "one");
  map.put(2, "two");
  EXPECT_EQ(map.put(1, "uno"), "uno");
  map.put(3, "three");  // 2 goes
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(*map.find(1), "uno");
  EXPECT_EQ(map.find(2), nullptr);
}

TEST(LruMap, EraseEraseIfAndClearKeepTheOrderOfTheRest) {
  Map map(4);
  for (int i = 1; i <= 4; ++i) map.put(i, std::to_string(i));
  map.erase(2);
  map.erase(42);  // absent: nothing
  map.erase_if([](const std::string& v) { return v == "3"; });
  EXPECT_EQ(map.size(), 2u);
  map.put(5, "5");
  map.put(6, "6");
  map.put(7, "7");  // full at 4: 1, the oldest left, goes
  EXPECT_EQ(map.find(1), nullptr);
  EXPECT_NE(map.find(4), nullptr);
  map.clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.find(4), nullptr);
  map.put(8, "8");
  EXPECT_EQ(*map.find(8), "8");
}

TEST(LruMap, CapacityIsAtLeastOne) {
  Map map(0);
  map.put(1, "one");
  map.put(2, "two");
  EXPECT_EQ(map.size(), 1u);
  EXPECT_NE(map.find(2), nullptr);
}

}  // namespace
}  // namespace storeapi::auth
