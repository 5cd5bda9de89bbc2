#pragma once
// A hash map of bounded size that, when full, drops its least recently used entry: a
// cache that keeps the keys in use rather than starting over, so that a working set a
// little larger than the bound costs a few misses, not a miss for everything that follows.
// One core's: no locks. A lookup moves the entry to the front of a list threaded through
// the map's own nodes (whose addresses unordered_map keeps stable), so an entry costs one
// allocation and two pointers more than in the plain map.
#include <cstddef>
#include <unordered_map>
#include <utility>

namespace storeapi::auth {

template <class Key, class Value, class HashFn>
class LruMap {
 public:
  explicit LruMap(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}
  LruMap(const LruMap&) = delete;
  LruMap& operator=(const LruMap&) = delete;

  // The value, now the most recently used; nullptr when absent.
  Value* find(const Key& key) {
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    unlink(it->second);
    link_front(it->second);
    return &it->second.value;
  }

  // Sets the value of `key` (the most recently used from now), dropping the least
  // recently used entry first when the map is full. Returns the stored value.
  Value& put(const Key& key, Value value) {
    auto it = map_.find(key);
    if (it != map_.end()) {
      it->second.value = std::move(value);
      unlink(it->second);
      link_front(it->second);
      return it->second.value;
    }
    if (map_.size() >= capacity_) erase(*static_cast<Node*>(head_.prev)->key);
    auto [added, _] = map_.try_emplace(key, std::move(value));
    added->second.key = &added->first;
    link_front(added->second);
    return added->second.value;
  }

  void erase(const Key& key) {
    auto it = map_.find(key);
    if (it == map_.end()) return;
    unlink(it->second);
    map_.erase(it);
  }

  template <class Predicate>  // pred(const Value&)
  void erase_if(Predicate pred) {
    for (auto it = map_.begin(); it != map_.end();) {
      if (pred(std::as_const(it->second.value))) {
        unlink(it->second);
        it = map_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void clear() {
    map_.clear();
    head_.prev = head_.next = &head_;
  }

  std::size_t size() const noexcept { return map_.size(); }
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  struct Links {
    Links* prev;
    Links* next;
  };
  struct Node : Links {
    explicit Node(Value v) : Links{nullptr, nullptr}, value(std::move(v)) {}
    Value value;
    const Key* key = nullptr;  // the map's own copy, to find the node again when evicting it
  };

  void unlink(Links& n) noexcept {
    n.prev->next = n.next;
    n.next->prev = n.prev;
  }
  void link_front(Links& n) noexcept {
    n.prev = &head_;
    n.next = head_.next;
    head_.next->prev = &n;
    head_.next = &n;
  }

  std::size_t capacity_;
  std::unordered_map<Key, Node, HashFn> map_;
  Links head_{&head_, &head_};  // head_.next: most recently used; head_.prev: least
};

}  // namespace storeapi::auth
