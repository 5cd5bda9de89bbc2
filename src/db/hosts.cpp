#include "db/hosts.hpp"

#include <algorithm>
#include <string_view>

namespace storeapi::db {
namespace {

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    parts.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

// One value for every host, or one each (libpq's rule for port and hostaddr).
bool spread(std::vector<std::string>& values, std::size_t hosts) {
  if (values.size() == hosts) return true;
  if (values.size() != 1) return false;
  values.assign(hosts, values.front());
  return true;
}

}  // namespace

std::string HostTarget::key() const { return (host.empty() ? hostaddr : host) + ":" + port; }

HostList split_hosts(const std::string& host, const std::string& hostaddr, const std::string& port) {
  // libpq counts hostaddr's entries when it is given, else host's.
  std::vector<std::string> hosts = split_commas(host);
  std::vector<std::string> addrs = split_commas(hostaddr);
  std::vector<std::string> ports = split_commas(port);
  const std::size_t count = hostaddr.empty() ? hosts.size() : addrs.size();
  if (!host.empty() && hosts.size() != count)
    return {{},
            "could not match " + std::to_string(hosts.size()) + " host names to " + std::to_string(count) +
                " hostaddr values"};
  if (!spread(ports, count))
    return {{},
            "could not match " + std::to_string(ports.size()) + " port numbers to " + std::to_string(count) + " hosts"};
  HostList list;
  for (std::size_t i = 0; i < count; ++i)
    list.hosts.push_back({host.empty() ? "" : hosts[i], hostaddr.empty() ? "" : addrs[i], ports[i]});
  return list;
}

std::vector<std::string> session_passes(const std::string& target_session_attrs) {
  if (target_session_attrs == "prefer-standby") return {"standby", "any"};
  return {target_session_attrs.empty() ? "any" : target_session_attrs};
}

HostDemotions& HostDemotions::process() {
  static HostDemotions demotions;
  return demotions;
}

void HostDemotions::timed_out(const std::string& key, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  demoted_[key] = {now, now};
}

void HostDemotions::answered(const std::string& key) {
  std::lock_guard lock(mutex_);
  demoted_.erase(key);
}

std::vector<std::size_t> HostDemotions::order(std::span<const HostTarget> hosts, Clock::time_point now) {
  // Nothing to put first instead, and a lone address is often a proxy (HAProxy in front of
  // Patroni): an attempt that timed out on its dead server says nothing of the next, which
  // may land on the promoted one.
  if (hosts.size() == 1) return {0};
  std::vector<std::size_t> fresh, due;
  std::vector<Clock::time_point> since(hosts.size());
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      const auto it = demoted_.find(hosts[i].key());
      if (it != demoted_.end() && now - it->second.since >= period_)
        demoted_.erase(it);
      else if (it != demoted_.end()) {
        if (now - it->second.offered < retry_every_) continue;  // another attempt has it
        it->second.offered = now;
        since[i] = it->second.since;
        due.push_back(i);
        continue;
      }
      fresh.push_back(i);
    }
  }
  std::stable_sort(due.begin(), due.end(), [&](std::size_t a, std::size_t b) { return since[a] < since[b]; });
  fresh.insert(fresh.end(), due.begin(), due.end());
  return fresh;
}

}  // namespace storeapi::db
