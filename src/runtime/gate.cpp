#include "runtime/gate.hpp"

#include <cassert>

namespace storeapi::runtime {

Gate::Holder& Gate::Holder::operator=(Holder&& other) noexcept {
  if (this != &other) {
    leave();
    gate_ = std::exchange(other.gate_, nullptr);
  }
  return *this;
}

void Gate::Holder::leave() noexcept {
  Gate* gate = std::exchange(gate_, nullptr);
  if (!gate) return;
  if (--gate->holders_ == 0 && gate->state_ == State::closing) gate->left_.signal();
}

Gate::~Gate() { assert(holders_ == 0); }

Gate::Holder Gate::enter() noexcept {
  if (state_ != State::open) return Holder();
  ++holders_;
  return Holder(this);
}

task<void> Gate::close() {
  assert(state_ == State::open);
  state_ = State::closing;
  while (holders_ > 0) {
    const Woken woken = co_await left_.wait();
    if (woken == Woken::broken) co_return;  // the gate itself is going
  }
  state_ = State::closed;
}

void Gate::reopen() noexcept {
  assert(state_ == State::closed);
  state_ = State::open;
}

}  // namespace storeapi::runtime
