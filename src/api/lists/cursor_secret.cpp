#include "api/lists/cursor_secret.hpp"

#include <algorithm>
#include <chrono>

#include "common/backoff.hpp"
#include "runtime/io.hpp"

namespace storeapi::api {

const db::Statement kCursorSecret{"cursor_secret", "select secret from cursor_secret", {}, CursorSecret::columns};

runtime::task<void> load_cursor_secret(db::Pool& pool, std::string& out, runtime::Event& attempted) {
  Backoff pause(std::chrono::milliseconds(5), std::chrono::milliseconds(1'000));
  for (;;) {
    if (!pool.ready()) {
      // At start the pool is usually a few milliseconds from ready: its change wakes this.
      co_await pool.changed().wait();
      continue;
    }
    db::Unit unit;
    unit.add(kCursorSecret, {});
    const db::Outcome outcome = co_await pool.run(unit);
    const bool read = outcome == db::Outcome::done && unit.result(0).ok() && unit.result(0).rows() == 1;
    if (read) out.assign(unit.result(0).row<CursorSecret>(0).secret());
    attempted.broadcast();
    if (read) co_return;
    // The database answered without it (not migrated yet): ask again later.
    if (outcome == db::Outcome::done) co_await runtime::sleep_for(pause.next());
  }
}

}  // namespace storeapi::api
