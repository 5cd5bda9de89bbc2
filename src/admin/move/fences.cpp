#include "admin/move/fences.hpp"

#include <thread>

namespace storeapi::admin {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kDispatchPoll{50};

// A claim (src/dispatch/outbox.cpp) raises attempts and leases the row (next_attempt_at
// ahead) before the transfer; the outcome's record ends it: a delivery's attempt gets its
// row, an e-mail leaves `pending` or is rescheduled with updated_at after the pause.
// An e-mail rescheduled after a failure before the pause looks claimed too: the wait is
// bounded for it.
constexpr const char* kClaimedInFlight = R"SQL(
select (select count(*) from webhook_deliveries d
         where d.store_id = $1 and d.status = 'pending' and d.attempts > 0 and d.next_attempt_at > now()
           and not exists (select from webhook_delivery_attempts a
                            where a.store_id = d.store_id and a.delivery_id = d.id
                              and a.event_created_at = d.event_created_at and a.attempt = d.attempts))
     + (select count(*) from notifications n
         where n.store_id = $1 and n.status = 'pending' and n.attempts > 0 and n.next_attempt_at > now()
           and n.updated_at <= $2::timestamptz) as claimed
)SQL";

}  // namespace

std::int64_t pause_dispatch(pqxx::connection& source, const std::string& store_id, std::int64_t epoch,
                            milliseconds limit) {
  std::string paused_at;
  {
    pqxx::work work(source);
    paused_at = work.exec_params1(
                        "insert into store_fences (store_id, epoch, writes_fenced, dispatch_paused)"
                        " values ($1, $2, false, true)"
                        " on conflict (store_id) do update set dispatch_paused = true, updated_at = api.now_ms()"
                        " returning updated_at::text as paused_at",
                        store_id, epoch)["paused_at"]
                    .c_str();
    work.commit();
  }
  pqxx::nontransaction work(source);
  auto deadline = steady_clock::now() + limit;
  for (;;) {
    auto claimed = work.exec_params1(kClaimedInFlight, store_id, paused_at)["claimed"].as<std::int64_t>();
    if (claimed == 0 || steady_clock::now() > deadline) return claimed;
    std::this_thread::sleep_for(kDispatchPoll);
  }
}

void hold_on_target(pqxx::transaction_base& work, const std::string& store_id, std::int64_t epoch) {
  work.exec_params(
      "insert into store_fences (store_id, epoch, writes_fenced, dispatch_paused) values ($1, $2, true, true)"
      " on conflict (store_id) do update set epoch = excluded.epoch, writes_fenced = true,"
      " dispatch_paused = true, updated_at = api.now_ms()",
      store_id, epoch);
}

void fence_writes(pqxx::connection& source, const std::string& store_id, std::int64_t epoch) {
  pqxx::work work(source);
  work.exec_params("select api.fence_store_writes($1, $2, true)", store_id, epoch);
  work.commit();
}

void lift_fence(pqxx::connection& pod, const std::string& store_id, std::int64_t epoch) {
  pqxx::work work(pod);
  work.exec_params(
      "insert into store_fences (store_id, epoch, writes_fenced, dispatch_paused) values ($1, $2, false, false)"
      " on conflict (store_id) do update set epoch = excluded.epoch, writes_fenced = false,"
      " dispatch_paused = false, updated_at = api.now_ms()",
      store_id, epoch);
  work.commit();
}

void resume_store(pqxx::connection& pod, const std::string& store_id) {
  pqxx::work work(pod);
  work.exec_params(
      "update store_fences set writes_fenced = false, dispatch_paused = false, updated_at = api.now_ms()"
      " where store_id = $1 and (writes_fenced or dispatch_paused)",
      store_id);
  work.commit();
}

void keep_tombstone(pqxx::transaction_base& work, const std::string& store_id) {
  work.exec_params(
      "update store_fences set writes_fenced = true, dispatch_paused = false, updated_at = api.now_ms()"
      " where store_id = $1",
      store_id);
}

}  // namespace storeapi::admin
