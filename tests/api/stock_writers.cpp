#include "api/stock_writers.hpp"

#include <gtest/gtest.h>
#include <pqxx/pqxx>

#include <cstdio>
#include <random>
#include <thread>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kClients = 4;
// Each client goes on until the faults are over, and makes at least this many operations
// (at most kMaxOperationsPerClient, a bound on the test's length however fast writes are).
constexpr int kOperationsPerClient = 40;
constexpr int kMaxOperationsPerClient = 5000;
// How long one operation may take, retries included, before the test calls it a hang.
constexpr auto kOperationBound = 60s;
// How long a key may stay "in progress" before the client gives it up.
constexpr auto kInProgressPatience = 3s;
// With a count of faults: at least this many operations acknowledged while they went on.
constexpr long long kMinAcknowledgedDuringFaults = 20;

}  // namespace

StockWriters::StockWriters(SeededServer& env, std::string run, std::vector<std::uint16_t> ports)
    : env_(env), run_(std::move(run)), ports_(ports.empty() ? std::vector<std::uint16_t>{env.port()} : std::move(ports)) {
  variant_ = env_.live_variant(0);
  env_.exec("update variants set stock = 1000 where id = $1", variant_.variant);
  initial_stock_ = 1000;
}

void StockWriters::set_port(std::uint16_t port) {
  std::lock_guard lock(ports_mutex_);
  ports_ = {port};
}

void StockWriters::run(int faults, const std::function<void()>& fault) {
  faults_ = faults;
  run(fault);
}

void StockWriters::run(const std::function<void()>& fault) {
  std::atomic<bool> faults_over{false};
  std::vector<std::vector<Operation>> per_client(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([this, c, &faults_over, &mine = per_client[static_cast<std::size_t>(c)]] {
      std::mt19937 random(static_cast<unsigned>(c) * 7919u + 17u);
      for (int i = 0; i < kMaxOperationsPerClient && (i < kOperationsPerClient || !faults_over); ++i) {
        Operation& op = mine.emplace_back();
        op.key = run_ + "-" + std::to_string(c) + "-" + std::to_string(i);
        op.delta = static_cast<int>(random() % 5) + 1;
        const auto sent = Clock::now();
        perform(op, static_cast<std::size_t>(c + i));
        op.during_faults = op.acknowledged && !faults_over;
        ledger_.record({.key = op.key,
                        .first_sent = sent,
                        .acknowledged_at = op.acknowledged ? std::optional(op.acknowledged_at) : std::nullopt,
                        .attempts = op.attempts});
      }
    });
  fault();
  faults_over = true;
  for (auto& t : clients) t.join();
  for (auto& mine : per_client) ops_.insert(ops_.end(), mine.begin(), mine.end());
}

void StockWriters::check() {
  // Key by key: each operation's movements (the key is the movement's note), in one query.
  std::map<std::string, long> rows;
  {
    auto conn = env_.database().connect();  // of its own: the side connection may have died with a server
    pqxx::nontransaction work(*conn);
    for (const auto& row : work.exec_params("select note, count(*) from stock_movements where variant_id = $1"
                                            " and note like $2 group by note",
                                            variant_.variant, run_ + "-%"))
      rows[row[0].as<std::string>()] = row[1].as<long>();
  }
  const WriteLedger::Tally tally = ledger_.check(rows, "writers " + run_);
  long long applied_delta = 0, applied = 0, replays = 0, during_faults = 0, retried = 0;
  for (const Operation& op : ops_) {
    during_faults += op.during_faults;
    retried += op.acknowledged && op.attempts > 1;
    const auto found = rows.find(op.key);
    const long n = found == rows.end() ? 0 : found->second;
    if (op.replay_flagged) ++replays;
    applied += n;
    applied_delta += n * op.delta;
  }
  if (faults_ > 0) {
    EXPECT_GE(during_faults, kMinAcknowledgedDuringFaults) << "operations acknowledged while the faults went on";
    EXPECT_GE(retried, 1) << "no acknowledged operation was retried across a fault: the faults missed the writes";
    EXPECT_LE(tally.operations - tally.acknowledged, static_cast<long>(kClients) * faults_)
        << "unacknowledged beyond one in-flight operation per client and fault";
  }
  EXPECT_EQ(env_.count("select stock from variants where id = $1", variant_.variant), initial_stock_ + applied_delta);
  const long long acknowledged = tally.acknowledged;

  // Every acknowledged key, asked again, is a flagged replay and changes nothing.
  long long flagged = 0;
  std::size_t turn = 0;
  for (const Operation& op : ops_) {
    if (!op.acknowledged) continue;
    HttpResponse r = post(op, [&] {
      std::lock_guard lock(ports_mutex_);
      return ports_[turn++ % ports_.size()];
    }());
    EXPECT_EQ(r.status, 200) << op.key << ": " << r.body;
    if (r.header("Idempotent-Replayed") == std::optional<std::string>("true")) ++flagged;
  }
  EXPECT_EQ(flagged, acknowledged) << "every replay is flagged";
  EXPECT_EQ(env_.count("select count(*) from stock_movements where variant_id = $1 and note like $2",
                       variant_.variant, run_ + "-%"),
            applied)
      << "replays add nothing";
  std::printf("writers %s: %lld answered as replays, %lld acknowledged while the faults went on\n", run_.c_str(),
              replays, during_faults);
}

std::map<int, long> StockWriters::statuses() const {
  std::lock_guard lock(observed_mutex_);
  return statuses_;
}

long StockWriters::unavailable_without_retry_after() const {
  std::lock_guard lock(observed_mutex_);
  return unavailable_without_retry_after_;
}

HttpResponse StockWriters::post(const Operation& op, std::uint16_t port) {
  HttpClient client(port, 5s);
  const std::string body =
      R"({"mode":"adjust","quantity":)" + std::to_string(op.delta) + R"(,"note":")" + op.key + R"("})";
  return client.request_json("POST", path(),
                             {{"Authorization", "Bearer " + env_.key().key}, {"Idempotency-Key", op.key}}, body);
}

void StockWriters::observe(int status, bool retry_after) {
  std::lock_guard lock(observed_mutex_);
  ++statuses_[status];
  if (status == 503 && !retry_after) ++unavailable_without_retry_after_;
}

// Retries `op` with its key until a definitive answer, or gives it up as unacknowledged
// when its key stays in progress. Attempt n goes to the (turn + n)th port.
void StockWriters::perform(Operation& op, std::size_t turn) {
  const auto bound = Clock::now() + kOperationBound;
  std::optional<Clock::time_point> in_progress_since;
  while (Clock::now() < bound) {
    ++op.attempts;
    const std::uint16_t port = [&] {
      std::lock_guard lock(ports_mutex_);
      return ports_[turn++ % ports_.size()];
    }();
    try {
      HttpResponse r = post(op, port);
      observe(r.status, r.header("Retry-After").has_value());
      if (r.status == 200) {
        op.acknowledged = true;
        op.acknowledged_at = Clock::now();
        op.replay_flagged = r.header("Idempotent-Replayed") == std::optional<std::string>("true");
        return;
      }
      if (r.status == 409 && r.body.find("idempotency_in_progress") != std::string::npos) {
        if (!in_progress_since) in_progress_since = Clock::now();
        if (Clock::now() - *in_progress_since > kInProgressPatience) return;  // unacknowledged
      } else if (r.status < 500) {
        ADD_FAILURE() << op.key << ": unexpected " << r.status << " " << r.body;
        return;
      }
    } catch (const std::exception&) {
      // The server is down or was killed mid-answer: the same key again.
      observe(0, false);
    }
    std::this_thread::sleep_for(50ms);
  }
  ADD_FAILURE() << op.key << ": no definitive answer within the bound";
}

}  // namespace storeapi::testing
