#pragma once
// Concurrent idempotent stock adjustments against one or several nodes of the real server,
// while a test injects faults: each client retries an operation with the same
// Idempotency-Key until it gets a definitive answer, as the API asks clients to. Checked
// only through what is observable from outside (the HTTP API and the stock history), so
// the check holds whatever the write path looks like inside:
//   - key by key (the key is the movement's note; support/write_ledger.hpp): every
//     acknowledged operation is in the stock history exactly once (0 missing, 0 doubled),
//     one never acknowledged at most once (it may have been applied before a fault cut
//     its answer off: counted and reported), and no movement under a key no operation had;
//   - the final stock is the start plus exactly the operations in the history;
//   - afterwards, every acknowledged key answers again as a replay, flagged
//     Idempotent-Replayed, without a new movement.
// A key whose first attempt died mid-flight may be answered 409 idempotency_in_progress
// until its reservation expires (60 s); the client gives such a key up after a few
// seconds and counts it as unacknowledged rather than wait that long.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/seeded_server.hpp"
#include "support/write_ledger.hpp"

namespace storeapi::testing {

class StockWriters {
 public:
  using Clock = std::chrono::steady_clock;

  // The clients write `env`'s first live variant through `ports` (each operation, and each
  // retry of it, on the next one), or through env's server when `ports` is empty.
  StockWriters(SeededServer& env, std::string run, std::vector<std::uint16_t> ports = {});

  std::string path() const { return variant_.path() + "/stock"; }
  // Every later attempt goes to `port` (a server restarted on a new port).
  void set_port(std::uint16_t port);

  // Runs the clients while `fault` injects its faults, and until each client made at least
  // a few operations. The faults run on the calling thread: a server started from a thread
  // that then ends would die with it (PR_SET_PDEATHSIG follows the forking thread, not the
  // process).
  void run(const std::function<void()>& fault);
  // The same, for `faults` faults of a kind the writes ride through (a server killed, the
  // database restarted): check() then also asks that something happened — at least
  // kMinAcknowledgedDuringFaults acknowledged while the faults went on, one of them retried
  // across a fault — and that at most one operation per client and fault (the one in
  // flight) went unacknowledged.
  void run(int faults, const std::function<void()>& fault);

  // The invariants of the file's head comment, on env's side connection.
  void check();

  // What the attempts were answered, by status (0: no answer, the connection failed or
  // timed out), and how many 503s came without a Retry-After.
  std::map<int, long> statuses() const;
  long unavailable_without_retry_after() const;
  // Each operation as its client saw it, by key and timestamps (support/write_ledger.hpp):
  // what a test places against its fault's window, and waits on (writes acknowledged
  // before a fault, after a recovery).
  const WriteLedger& ledger() const { return ledger_; }

 private:
  struct Operation {
    std::string key;  // Idempotency-Key, also the movement's note
    int delta = 0;
    bool acknowledged = false;
    bool replay_flagged = false;  // the acknowledging answer said Idempotent-Replayed: true
    Clock::time_point acknowledged_at{};
    bool during_faults = false;  // acknowledged before the faults were over
    int attempts = 0;
  };

  HttpResponse post(const Operation& op, std::uint16_t port);
  void perform(Operation& op, std::size_t client);
  void observe(int status, bool retry_after);

  SeededServer& env_;
  std::string run_;
  std::vector<std::uint16_t> ports_;
  std::mutex ports_mutex_;
  VariantRef variant_;
  long long initial_stock_ = 0;
  std::vector<Operation> ops_;
  int faults_ = 0;  // 0: the faults are not of a kind that bounds the unacknowledged
  mutable std::mutex observed_mutex_;
  std::map<int, long> statuses_;
  WriteLedger ledger_;
  long unavailable_without_retry_after_ = 0;
};

}  // namespace storeapi::testing
