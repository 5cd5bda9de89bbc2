#include "support/haproxy_process.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/free_port.hpp"
#include "support/http_client.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {

HaproxyProcess::HaproxyProcess(const std::vector<std::uint16_t>& ports)
    : port_(free_port()), stats_port_(free_port()) {
  char dir[] = "/tmp/storeapi-haproxy-XXXXXX";
  if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
  dir_ = dir;
  std::ofstream config(dir_ + "/haproxy.cfg");
  // A connect that fails (a node restarting) is retried on the other node; a request
  // that reached a node is never retried, so every failure the node causes shows.
  config << "global\n  maxconn 2000\n"
         << "defaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n"
         << "  retries 3\n  option redispatch 1\n  retry-on conn-failure\n"
         << "frontend api\n  bind 127.0.0.1:" << port_ << "\n  default_backend nodes\n"
         << "backend nodes\n  balance roundrobin\n  option httpchk GET /readyz\n  http-check expect status 200\n"
         << "  default-server check inter 100ms fall 2 rise 2\n";
  for (std::size_t i = 0; i < ports.size(); ++i) config << "  server node" << i << " 127.0.0.1:" << ports[i] << "\n";
  config << "listen stats\n  bind 127.0.0.1:" << stats_port_ << "\n  stats enable\n  stats uri /stats\n";
  config.close();

  ProcessOptions options;
  options.binary = "/usr/sbin/haproxy";  // an absolute path wins over the build directory
  options.args = {"-db", "-f", dir_ + "/haproxy.cfg"};
  options.inherit_settings = false;
  options.wait_for_listening = false;
  process_ = std::make_unique<ServerProcess>(options);
  if (!eventually([&] { return servers_up() == static_cast<int>(ports.size()); }))
    throw std::runtime_error("haproxy did not see every node up: " + process_->stderr_text());
}

HaproxyProcess::~HaproxyProcess() {
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

int HaproxyProcess::servers_up() {
  std::string csv;
  try {
    csv = HttpClient(stats_port_).get("/stats;csv").body;
  } catch (const std::exception&) {
    return -1;  // not serving yet
  }
  int up = 0;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    // pxname,svname,...,status (the 18th field)
    if (!line.starts_with("nodes,node")) continue;
    std::istringstream fields(line);
    std::string field;
    for (int i = 0; i < 18 && std::getline(fields, field, ','); ++i) {
    }
    up += field == "UP";
  }
  return up;
}

}  // namespace storeapi::testing
