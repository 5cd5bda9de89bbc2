#include "api/lists/cursor_secret.hpp"

#include <algorithm>
#include <chrono>

#include "common/backoff.hpp"
#include "runtime/io.hpp"

namespace storeapi::api {

const db::Statement kCursorSecret{"cursor_secret", "select secret from cursor_secret", {}, CursorSecret::columns};

runtime::task<void> load_cursor_secret(db::Pool& pool, std::string& out) {
  // Short first pauses: at start the pool is usually a few milliseconds from ready.
  Backoff pause(std::chrono::milliseconds(5), std::chrono::milliseconds(1'000));
  for (;;) {
    db::Unit unit;
    unit.add(kCursorSecret, {});
    if (co_await pool.run(unit) == db::Outcome::done && unit.result(0).ok() && unit.result(0).rows() == 1) {
      out.assign(unit.result(0).row<CursorSecret>(0).secret());
      co_return;
    }
    co_await runtime::sleep_for(pause.next());
  }
}

}  // namespace storeapi::api
