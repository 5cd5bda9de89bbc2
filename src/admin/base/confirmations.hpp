#pragma once
// Waiting for the servers to apply a change. Commands that change what a key may do send
// NOTIFY on the invalidation channel; NOTIFY is asynchronous, so without waiting a request
// sent right after the command returns could still be served from a server's cache. Each
// server answers `ack:<payload>` once all of its cores have applied a payload
// (src/auth/invalidation.hpp); this waits for those answers.
//
//   ServerConfirmations confirmations(conn);   // before the transaction: LISTEN, count servers
//   ... the command's transaction, with its NOTIFYs, commits ...
//   std::size_t late = confirmations.wait();   // 0: every server applied every change
#include <pqxx/pqxx>

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace storeapi::admin {

class ServerConfirmations : public pqxx::notification_receiver {
 public:
  // Listens on the channel and counts the servers listening on this database (their
  // LISTEN sessions, application_name storeapi), outside any transaction.
  explicit ServerConfirmations(pqxx::connection_base& conn);

  // After the commit: waits until each server counted has confirmed each payload this
  // connection announced, or `limit` passed (the servers' cache TTL is then the safety
  // net). Returns how many confirmations are missing.
  std::size_t wait(std::chrono::milliseconds limit = std::chrono::seconds(2));

  void operator()(const std::string& payload, int backend_pid) override;

 private:
  std::size_t missing() const;

  std::size_t servers_ = 0;
  std::vector<std::string> announced_;           // our own payloads, as they came back to us
  std::map<std::string, std::size_t> confirmed_;  // confirmations by payload
};

}  // namespace storeapi::admin
