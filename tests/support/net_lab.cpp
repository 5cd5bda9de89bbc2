#include "support/net_lab.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace storeapi::testing {
namespace {

constexpr const char* kPrefix = "sapinet";
constexpr std::size_t kMaxHosts = 16;

// Runs argv with its output captured; the exit code and the output.
std::pair<int, std::string> run(const std::vector<std::string>& argv) {
  char path[] = "/tmp/storeapi-netlab-XXXXXX";
  const int out = ::mkstemp(path);
  if (out < 0) throw std::runtime_error("mkstemp failed");
  ::unlink(path);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::lseek(out, 0, SEEK_SET);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(out);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s.push_back(' ');
    s.append(a);
  }
  return s;
}

// Namespaces of earlier labs whose process is gone (killed by a timeout, say).
void remove_orphans() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/run/netns", ec)) {
    const std::string name = entry.path().filename();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string digits = name.substr(std::string(kPrefix).size(), name.find('-') - std::string(kPrefix).size());
    const pid_t owner = static_cast<pid_t>(std::atol(digits.c_str()));
    if (owner > 0 && (::kill(owner, 0) == 0 || errno != ESRCH)) continue;
    run({"ip", "netns", "del", name});
  }
}

}  // namespace

void run_checked(const std::vector<std::string>& argv) {
  auto [code, output] = run(argv);
  if (code != 0) throw std::runtime_error(joined(argv) + " failed (" + std::to_string(code) + "): " + output);
}

std::string NetLab::name(const std::string& what) const {
  return std::string(kPrefix) + std::to_string(::getpid()) + "-" + what;
}

NetLab::NetLab() {
  hosts_.reserve(kMaxHosts);
  if (::geteuid() != 0) throw Unavailable("not root: network namespaces need CAP_NET_ADMIN and CAP_SYS_ADMIN");
  remove_orphans();
  hub_ = name("hub");
  if (auto [code, output] = run({"ip", "netns", "add", hub_}); code != 0)
    throw Unavailable("ip netns add failed (" + std::to_string(code) + "): " + output);
  try {
    run_checked({"ip", "-n", hub_, "link", "set", "lo", "up"});
    run_checked({"ip", "-n", hub_, "link", "add", "br0", "type", "bridge"});
    run_checked({"ip", "-n", hub_, "addr", "add", "10.233.0.1/24", "dev", "br0"});
    run_checked({"ip", "-n", hub_, "link", "set", "br0", "up"});
    original_netns_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    const int hub = ::open(("/run/netns/" + hub_).c_str(), O_RDONLY | O_CLOEXEC);
    if (original_netns_ < 0 || hub < 0 || ::setns(hub, CLONE_NEWNET) != 0) {
      if (hub >= 0) ::close(hub);
      throw Unavailable("cannot join the hub namespace");
    }
    ::close(hub);
  } catch (...) {
    if (original_netns_ >= 0) ::close(original_netns_);
    run({"ip", "netns", "del", hub_});
    throw;
  }
}

NetLab::~NetLab() {
  if (original_netns_ >= 0) {
    ::setns(original_netns_, CLONE_NEWNET);
    ::close(original_netns_);
  }
  for (const Host& h : hosts_) run({"ip", "netns", "del", h.netns});
  run({"ip", "netns", "del", hub_});
}

const NetLab::Host& NetLab::add_host() {
  if (hosts_.size() == kMaxHosts) throw std::logic_error("NetLab: too many hosts");
  const std::size_t n = hosts_.size() + 1;
  const std::string number = std::to_string(n);
  Host host{name(std::string("h").append(number)), std::string("10.233.0.").append(std::to_string(10 + n)),
            std::string("vh").append(number)};
  char mac[18];
  std::snprintf(mac, sizeof mac, "02:33:00:00:00:%02zx", 10 + n);
  run_checked({"ip", "netns", "add", host.netns});
  hosts_.push_back(host);
  run_checked({"ip", "-n", host.netns, "link", "set", "lo", "up"});
  run_checked(
      {"ip", "-n", hub_, "link", "add", host.hub_link, "type", "veth", "peer", "name", "eth0", "netns", host.netns});
  run_checked({"ip", "-n", hub_, "link", "set", host.hub_link, "master", "br0", "up"});
  run_checked({"ip", "-n", host.netns, "link", "set", "eth0", "address", mac, "up"});
  run_checked({"ip", "-n", host.netns, "addr", "add", host.address + "/24", "dev", "eth0"});
  run_checked({"ip", "-n", hub_, "neigh", "replace", host.address, "lladdr", mac, "dev", "br0", "nud", "permanent"});
  return hosts_.back();
}

void NetLab::cut(const Host& host) { run_checked({"ip", "-n", host.netns, "link", "set", "eth0", "down"}); }

void NetLab::mend(const Host& host) { run_checked({"ip", "-n", host.netns, "link", "set", "eth0", "up"}); }

}  // namespace storeapi::testing
