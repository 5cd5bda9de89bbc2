#include "admin/base/confirmations.hpp"

#include <algorithm>

#include "auth/confirmation.hpp"

namespace storeapi::admin {
namespace {

std::string invalidate_channel(pqxx::connection_base& conn) {
  pqxx::nontransaction work(conn);
  return work.exec1("select api.config('invalidate_channel') as channel")["channel"].c_str();
}

}  // namespace

ServerConfirmations::ServerConfirmations(pqxx::connection_base& conn) : notification_receiver(conn, invalidate_channel(conn)) {
  // A server's LISTEN connection runs nothing but its LISTEN. One connecting after this
  // count is not waited for, but it starts with an empty cache anyway.
  pqxx::nontransaction work(conn);
  servers_ = work.exec1(
                     "select count(*) as servers from pg_stat_activity where datname = current_database()"
                     " and application_name = 'storeapi' and query like 'LISTEN %'")["servers"]
                 .as<std::size_t>();
}

void ServerConfirmations::operator()(const std::string& payload, int backend_pid) {
  std::string_view p(payload);
  if (auth::is_confirmation(p)) ++confirmed_[std::string(p.substr(auth::kConfirmationPrefix.size()))];
  else if (backend_pid == conn().backendpid()) announced_.push_back(payload);
}

std::size_t ServerConfirmations::missing() const {
  std::size_t n = 0;
  for (const std::string& payload : announced_) {
    auto it = confirmed_.find(payload);
    std::size_t got = it == confirmed_.end() ? 0 : it->second;
    n += servers_ - std::min(got, servers_);
  }
  return n;
}

std::size_t ServerConfirmations::wait(std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  conn().get_notifs();  // our own notifications arrived with the commit
  while (missing() > 0) {
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    conn().await_notification(static_cast<long>(left.count() / 1'000'000), static_cast<long>(left.count() % 1'000'000));
  }
  return missing();
}

}  // namespace storeapi::admin
