#pragma once
// A first-in, first-out list of objects that carry their own links (`ListLinks<T> links`):
// joining and leaving it allocate nothing and take constant time, whatever the object's
// place, so an object living in a coroutine frame can join and leave it as the frame
// comes and goes. The reactor's end-of-iteration queue and an Event's waiters are such
// lists. One core only, as what uses it.

namespace storeapi::runtime {

// The links an object carries for the one list it can be on at a time.
template <class T>
struct ListLinks {
  T* prev = nullptr;
  T* next = nullptr;
};

// T has a member `ListLinks<T> links` (accessible to this class). T may be incomplete
// where the list is declared; it is complete where the list is used.
template <class T>
class IntrusiveList {
 public:
  bool empty() const noexcept { return head_ == nullptr; }
  T* front() const noexcept { return head_; }

  // `x` is on no list.
  void push_back(T& x) noexcept {
    x.links.prev = tail_;
    x.links.next = nullptr;
    if (tail_) tail_->links.next = &x;
    else head_ = &x;
    tail_ = &x;
  }

  // `x` is on this list.
  void remove(T& x) noexcept {
    if (x.links.prev) x.links.prev->links.next = x.links.next;
    else head_ = x.links.next;
    if (x.links.next) x.links.next->links.prev = x.links.prev;
    else tail_ = x.links.prev;
    x.links.prev = x.links.next = nullptr;
  }

  // The first object, taken off the list; nullptr when it is empty.
  T* pop_front() noexcept {
    T* x = head_;
    if (x) remove(*x);
    return x;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
};

}  // namespace storeapi::runtime
