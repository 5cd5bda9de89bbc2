// The list the reactor's end-of-iteration queue and Event's waiters share: first in,
// first out, and an object leaves it from any place, the ends included.
#include "runtime/intrusive_list.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace storeapi::runtime;

namespace {

struct Item {
  int id;
  ListLinks<Item> links{};
};

std::vector<int> drain(IntrusiveList<Item>& list) {
  std::vector<int> ids;
  while (Item* item = list.pop_front()) ids.push_back(item->id);
  return ids;
}

}  // namespace

TEST(IntrusiveList, FirstInFirstOut) {
  Item a{1}, b{2}, c{3};
  IntrusiveList<Item> list;
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.pop_front(), nullptr);
  list.push_back(a);
  list.push_back(b);
  list.push_back(c);
  EXPECT_EQ(list.front(), &a);
  EXPECT_EQ(drain(list), (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(list.empty());
}

TEST(IntrusiveList, AnItemLeavesFromAnyPlace) {
  Item a{1}, b{2}, c{3}, d{4};
  IntrusiveList<Item> list;
  for (Item* item : {&a, &b, &c, &d}) list.push_back(*item);
  list.remove(b);  // the middle
  list.remove(d);  // the tail: the next one joins after c
  list.remove(a);  // the head
  EXPECT_EQ(b.links.prev, nullptr);
  EXPECT_EQ(b.links.next, nullptr);
  list.push_back(a);
  EXPECT_EQ(drain(list), (std::vector<int>{3, 1}));
  // A list emptied by remove takes new items at its head.
  list.push_back(b);
  list.remove(b);
  EXPECT_TRUE(list.empty());
  list.push_back(c);
  EXPECT_EQ(list.front(), &c);
  EXPECT_EQ(drain(list), (std::vector<int>{3}));
}
