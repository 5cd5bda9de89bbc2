#include "db/unit.hpp"

#include <cassert>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace storeapi::db {

std::size_t Unit::store(std::string_view bytes) {
  std::size_t need = arena_used_ + bytes.size() + 1;
  if (need > arena_cap_) {
    std::size_t cap = std::max(need, arena_cap_ * 2);
    std::unique_ptr<char[]> bigger(new char[cap]);
    std::memcpy(bigger.get(), heap_arena_ ? heap_arena_.get() : inline_arena_, arena_used_);
    heap_arena_ = std::move(bigger);
    arena_cap_ = cap;
  }
  char* base = heap_arena_ ? heap_arena_.get() : inline_arena_;
  std::size_t at = arena_used_;
  std::memcpy(base + at, bytes.data(), bytes.size());
  base[at + bytes.size()] = '\0';
  arena_used_ = need;
  return at;
}

Unit& Unit::add(const Statement* first, const Statement& statement, std::span<const Param> params) {
  if (count_ + (first ? 2 : 1) > kMaxStatements || param_count_ + params.size() > kMaxParams ||
      static_cast<int>(params.size()) != statement.param_count() || (first && first->param_count() != 0))
    throw std::logic_error(std::string("db::Unit::add: bad use with statement ") + statement.name);
  if (first) append(*first, {});
  append(statement, params);
  return *this;
}

void Unit::append(const Statement& statement, std::span<const Param> params) {
  entries_[count_] = {&statement, static_cast<std::uint16_t>(param_count_),
                      static_cast<std::uint16_t>(params.size()), false};
  for (const Param& p : params) {
    if (p.null_) {
      offsets_[param_count_++] = -1;
    } else if (p.is_integer_) {
      char digits[24];
      auto r = std::to_chars(digits, digits + sizeof digits, p.integer_);
      offsets_[param_count_++] = static_cast<std::int32_t>(store({digits, static_cast<std::size_t>(r.ptr - digits)}));
    } else {
      offsets_[param_count_++] = static_cast<std::int32_t>(store(p.text_));
    }
  }
  ++count_;
}

Unit& Unit::sync() {
  if (count_ > 0) entries_[count_ - 1].sync_after = true;
  return *this;
}

std::size_t Unit::segments() const noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < count_; ++i) n += entries_[i].sync_after || i + 1 == count_;
  return n;
}

Unit::Sending Unit::sending(std::size_t i) noexcept {
  const Entry& e = entries_[i];
  const char* base = heap_arena_ ? heap_arena_.get() : inline_arena_;
  for (std::size_t k = e.first_param; k < e.first_param + e.nparams; ++k)
    pointers_[k] = offsets_[k] < 0 ? nullptr : base + offsets_[k];
  return {e.statement->name, e.nparams, pointers_ + e.first_param, e.sync_after || i + 1 == count_};
}

void Unit::reset_results() noexcept {
  // Also after a run that never left the pool (refused: no connection, or overloaded).
  if (phase_ != Phase::built) move_to(Phase::built);
  for (std::size_t i = 0; i < count_; ++i) results_[i] = Result();
  current_ = 0;
  awaiting_end_ = false;
  syncs_seen_ = 0;
  outcome_ = Outcome::done;
}

void Unit::move_to(Phase to) noexcept {
  assert(legal(phase_, to));
  phase_ = to;
}

void Unit::finish(Outcome outcome) noexcept {
  move_to(Phase::finished);
  next_ = nullptr;
  outcome_ = outcome;
  waiter_.resume();
}

}  // namespace storeapi::db
