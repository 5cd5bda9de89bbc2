#include "support/haproxy_process.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/free_port.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {

HaproxyProcess::HaproxyProcess(const std::vector<std::uint16_t>& ports)
    : port_(free_port()) {
  char dir[] = "/tmp/storeapi-haproxy-XXXXXX";
  if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
  dir_ = dir;
  std::ofstream config(dir_ + "/haproxy.cfg");
  // A connect that fails (a node restarting) is retried on the other node; a request
  // that reached a node is never retried, so every failure the node causes shows.
  config << "global\n  maxconn 2000\n  stats socket " << dir_ << "/stats.sock\n"
         << "defaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n"
         << "  retries 3\n  option redispatch 1\n  retry-on conn-failure\n"
         << "frontend api\n  bind 127.0.0.1:" << port_ << "\n  default_backend nodes\n"
         << "backend nodes\n  balance roundrobin\n  option httpchk GET /readyz\n  http-check expect status 200\n"
         << "  default-server check inter 100ms fall 2 rise 2\n";
  for (std::size_t i = 0; i < ports.size(); ++i) config << "  server node" << i << " 127.0.0.1:" << ports[i] << "\n";
  config.close();

  ProcessOptions options;
  options.binary = "/usr/sbin/haproxy";  // an absolute path wins over the build directory
  options.args = {"-db", "-f", dir_ + "/haproxy.cfg"};
  options.inherit_settings = false;
  options.wait_for_listening = false;
  process_ = std::make_unique<ServerProcess>(options);
  if (!eventually([&] { return servers_up() == static_cast<int>(ports.size()); }))
    throw std::runtime_error("haproxy did not see every node up: " + process_->stdout_text() +
                             process_->stderr_text());
}

HaproxyProcess::~HaproxyProcess() {
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

int HaproxyProcess::servers_up() {
  // "show stat" on the stats socket: the CSV of the stats page, without HTTP.
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = dir_ + "/stats.sock";
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string csv;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::send(fd, "show stat\n", 10, MSG_NOSIGNAL) == 10) {
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) csv.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
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
