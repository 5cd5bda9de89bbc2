#pragma once
// The hosts of a libpq URL, one by one, and the order to try them in. libpq's own
// multi-host connect is useless without blocking: its connect_timeout applies only to
// blocking connects, so a host whose packets vanish holds a non-blocking attempt on its
// unanswered SYN until the caller's deadline ends the whole attempt, before the next host
// was ever tried. db/connect.cpp therefore connects to each host itself, each with its own
// deadline, in the order HostDemotions gives (docs/DECISIONS.md, "Failure detection").
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace storeapi::db {

// One entry of the URL's host list, with its own port and hostaddr (libpq's lists: one
// port for every host, or one per host; likewise hostaddr).
struct HostTarget {
  std::string host;
  std::string hostaddr;
  std::string port;
  // host:port (hostaddr when there is no host name): names it in logs and demotions.
  std::string key() const;
};

// The URL's hosts, or why they do not pair up (one line). An empty `host` is libpq's
// default (one target, its fields empty).
struct HostList {
  std::vector<HostTarget> hosts;
  std::string failure;
};
HostList split_hosts(const std::string& host, const std::string& hostaddr, const std::string& port);

// The sessions to try, in passes over the hosts: `prefer-standby` is a standby first,
// then anything (libpq's two passes); every other value is one pass of itself.
std::vector<std::string> session_passes(const std::string& target_session_attrs);

// Hosts whose connect timed out are tried after the others for `period`, so the next
// attempt does not sit out the same dead host's deadline again before reaching a live
// one; and a demoted host is offered to one attempt per `retry_every` in the process,
// the others leaving it out: while it stays dead one connection at a time waits out its
// deadline, the rest cycle through the live hosts at their backoff's pace, so a standby
// promoted meanwhile is found within a backoff rather than a deadline and a backoff.
// A URL of one host is tried by every attempt (there is no other to try instead).
// Shared by every core (connects are rare: a mutex is cheap enough).
class HostDemotions {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kPeriod{30};
  static constexpr std::chrono::seconds kRetryEvery{1};

  explicit HostDemotions(std::chrono::milliseconds period = kPeriod,
                         std::chrono::milliseconds retry_every = kRetryEvery)
      : period_(period), retry_every_(retry_every) {}
  static HostDemotions& process();

  void timed_out(const std::string& key, Clock::time_point now);
  // The host answered (a session, or a refusal: it is there): it keeps its place.
  void answered(const std::string& key);
  // Indexes into `hosts` for one attempt: those not demoted in URL order, then the
  // demoted ones due to be offered again, the longest demoted first (possibly none).
  std::vector<std::size_t> order(std::span<const HostTarget> hosts, Clock::time_point now);

 private:
  struct Demotion {
    Clock::time_point since;    // its last timeout
    Clock::time_point offered;  // the last attempt it was given to
  };
  std::chrono::milliseconds period_;
  std::chrono::milliseconds retry_every_;
  std::mutex mutex_;
  std::map<std::string, Demotion> demoted_;
};

}  // namespace storeapi::db
