#pragma once
// A gate: work that must finish before something closes (a send before its socket is
// closed, a background task before its owner goes) holds the gate while it runs; closing
// refuses newcomers and resumes the closer once the last holder has left
// (docs/ARCHITECTURE.md §3, "Waiting for another coroutine"). Per core, allocation-free
// but for close()'s own frame (from the core's frame pool).
//
// States: open ─close()→ closing (holders > 0) ─last holder leaves→ closed ─reopen()→ open;
// open ─close() with no holder→ closed at once.
#include <cstddef>
#include <utility>

#include "runtime/event.hpp"
#include "runtime/task.hpp"

namespace storeapi::runtime {

class Gate {
 public:
  // One holder of the gate; leaving it (destruction) lets a closer go on. Empty when the
  // gate was not open: the work must not start.
  class Holder {
   public:
    Holder() noexcept = default;
    Holder(Holder&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
    Holder& operator=(Holder&& other) noexcept;
    Holder(const Holder&) = delete;
    Holder& operator=(const Holder&) = delete;
    ~Holder() { leave(); }

    explicit operator bool() const noexcept { return gate_ != nullptr; }
    // Leaves before the end of the scope.
    void leave() noexcept;

   private:
    friend class Gate;
    explicit Holder(Gate* gate) noexcept : gate_(gate) {}
    Gate* gate_ = nullptr;
  };

  enum class State { open, closing, closed };

  Gate() = default;
  // A holder must not outlive its gate (checked in debug builds).
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  // A holder, or an empty one when the gate is closing or closed.
  [[nodiscard]] Holder enter() noexcept;
  // Refuses newcomers and resumes once no holder is left. One closer at a time.
  task<void> close();
  // Lets holders in again once closed (an owner that is reused, such as a connection
  // that reconnects).
  void reopen() noexcept;

  State state() const noexcept { return state_; }
  std::size_t holders() const noexcept { return holders_; }

 private:
  std::size_t holders_ = 0;
  State state_ = State::open;
  Event left_;  // the last holder left while closing
};

}  // namespace storeapi::runtime
