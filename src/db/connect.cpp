#include "db/connect.hpp"

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace storeapi::db {
namespace {

// Session settings every query relies on: UTC timestamps in ISO form, and a bound on any
// one statement so a stuck query cannot hold a request forever.
std::string session_options(std::chrono::milliseconds statement_timeout) {
  return "-c TimeZone=UTC -c DateStyle=ISO -c statement_timeout=" + std::to_string(statement_timeout.count());
}

// The URL's own values of the settings that matter here ("" when it leaves them out).
struct UrlSettings {
  std::string host, hostaddr, port, target_session_attrs, connect_timeout;
  bool sets_tcp_user_timeout = false, sets_keepalives = false, sets_keepalives_idle = false,
       sets_keepalives_interval = false;
  std::string failure;
};

UrlSettings read_url(const std::string& url) {
  UrlSettings s;
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(PQconninfoParse(url.c_str(), &error),
                                                                      &PQconninfoFree);
  if (!parsed) {
    s.failure = error ? one_line(error) : "out of memory";
    PQfreemem(error);
    return s;
  }
  for (const PQconninfoOption* o = parsed.get(); o->keyword; ++o) {
    if (!o->val) continue;
    const std::string_view k = o->keyword;
    if (k == "host")
      s.host = o->val;
    else if (k == "hostaddr")
      s.hostaddr = o->val;
    else if (k == "port")
      s.port = o->val;
    else if (k == "target_session_attrs")
      s.target_session_attrs = o->val;
    else if (k == "connect_timeout")
      s.connect_timeout = o->val;
    else if (k == "tcp_user_timeout")
      s.sets_tcp_user_timeout = true;
    else if (k == "keepalives")
      s.sets_keepalives = true;
    else if (k == "keepalives_idle")
      s.sets_keepalives_idle = true;
    else if (k == "keepalives_interval")
      s.sets_keepalives_interval = true;
  }
  return s;
}

// libpq's reading of connect_timeout: whole seconds, at least 2; 0 or nonsense is "none",
// which leaves ours.
std::chrono::milliseconds host_deadline(const UrlSettings& url, const ConnectOptions& options) {
  const long seconds = std::atol(url.connect_timeout.c_str());
  if (seconds <= 0) return options.connect_timeout;
  return std::chrono::seconds(std::max(seconds, 2L));
}

enum class HostResult { connected, refused, timed_out };

struct HostAttempt {
  HostResult result;
  PGconn* conn;
  std::string failure;
};

// One host, one session kind, one deadline.
runtime::task<HostAttempt> connect_host(const std::string& url, const UrlSettings& settings, const HostTarget& host,
                                        const std::string& session, const ConnectOptions& options) {
  const std::string statement_options = session_options(options.statement_timeout);
  const std::string user_timeout = std::to_string(options.tcp_user_timeout.count());
  // Later keywords override what the URL (expanded from dbname) says; an empty value
  // overrides nothing, which is right: the URL's list was empty too.
  std::vector<const char*> keys{
      "dbname", "host", "hostaddr", "port", "target_session_attrs", "options", "application_name", "client_encoding"};
  std::vector<const char*> values{url.c_str(),
                                  host.host.c_str(),
                                  host.hostaddr.c_str(),
                                  host.port.c_str(),
                                  session.c_str(),
                                  statement_options.c_str(),
                                  options.application_name.c_str(),
                                  "UTF8"};
  if (options.tcp_user_timeout.count() > 0) {
    const std::pair<bool, std::pair<const char*, const char*>> defaults[] = {
        {settings.sets_tcp_user_timeout, {"tcp_user_timeout", user_timeout.c_str()}},
        {settings.sets_keepalives, {"keepalives", "1"}},
        {settings.sets_keepalives_idle, {"keepalives_idle", "1"}},
        {settings.sets_keepalives_interval, {"keepalives_interval", "1"}},
    };
    for (const auto& [url_sets, kv] : defaults) {
      if (url_sets) continue;
      keys.push_back(kv.first);
      values.push_back(kv.second);
    }
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  const runtime::Deadline deadline = runtime::Deadline::after(host_deadline(settings, options));
  PGconn* conn = PQconnectStartParams(keys.data(), values.data(), 1);
  if (!conn) co_return HostAttempt{HostResult::refused, nullptr, "out of memory"};
  PostgresPollingStatusType polling = PQstatus(conn) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING;
  while (polling != PGRES_POLLING_OK) {
    if (polling == PGRES_POLLING_FAILED) {
      HostAttempt failed{HostResult::refused, nullptr, one_line(PQerrorMessage(conn))};
      PQfinish(conn);
      co_return failed;
    }
    if (!co_await await_socket(conn, polling == PGRES_POLLING_READING ? POLLIN : POLLOUT, &deadline)) {
      PQfinish(conn);
      co_return HostAttempt{HostResult::timed_out, nullptr, "timed out connecting to the database"};
    }
    polling = PQconnectPoll(conn);
  }
  if (PQsetnonblocking(conn, 1) != 0) {
    HostAttempt failed{HostResult::refused, nullptr, one_line(PQerrorMessage(conn))};
    PQfinish(conn);
    co_return failed;
  }
  co_return HostAttempt{HostResult::connected, conn, {}};
}

void note(HostDemotions& demotions, const HostTarget& host, HostResult result) {
  if (result == HostResult::timed_out)
    demotions.timed_out(host.key(), HostDemotions::Clock::now());
  else
    demotions.answered(host.key());
}

}  // namespace

std::string one_line(const char* message) {
  std::string s = message ? message : "";
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

runtime::task<bool> await_socket(PGconn* conn, unsigned mask, const runtime::Deadline* deadline) {
  runtime::Poll op(PQsocket(conn), mask, deadline);
  int events = co_await op;
  co_return events > 0;
}

runtime::task<Connected> connect(const std::string& url, const ConnectOptions& options) {
  const UrlSettings settings = read_url(url);
  if (!settings.failure.empty()) co_return Connected{nullptr, settings.failure, {}};
  const HostList list = split_hosts(settings.host, settings.hostaddr, settings.port);
  if (!list.failure.empty()) co_return Connected{nullptr, list.failure, {}};
  HostDemotions& demotions = HostDemotions::process();
  std::string failures;
  // Named, not temporaries of the loops' heads, as the co_awaits below cross them.
  const std::vector<std::string> passes = session_passes(settings.target_session_attrs);
  for (const std::string& session : passes) {
    const std::vector<std::size_t> order = demotions.order(list.hosts, HostDemotions::Clock::now());
    for (std::size_t i : order) {
      const HostTarget& host = list.hosts[i];
      HostAttempt attempt = co_await connect_host(url, settings, host, session, options);
      note(demotions, host, attempt.result);
      if (attempt.result == HostResult::connected) co_return Connected{attempt.conn, {}, host};
      if (list.hosts.size() == 1) co_return Connected{nullptr, std::move(attempt.failure), host};
      if (!failures.empty()) failures += "; ";
      failures += host.key() + ": " + attempt.failure;
    }
  }
  if (failures.empty()) failures = "every host timed out less than a second ago (tried again shortly)";
  co_return Connected{nullptr, std::move(failures), {}};
}

runtime::task<bool> host_answers(const std::string& url, const HostTarget& host, const ConnectOptions& options) {
  const UrlSettings settings = read_url(url);
  const std::string any = "any";  // named, not a temporary across the co_await (db/listener.cpp)
  HostAttempt attempt = co_await connect_host(url, settings, host, any, options);
  note(HostDemotions::process(), host, attempt.result);
  if (attempt.conn) PQfinish(attempt.conn);
  co_return attempt.result != HostResult::timed_out;
}

}  // namespace storeapi::db
