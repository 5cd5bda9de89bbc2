#include "support/primary_check.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pqxx/pqxx>

#include <future>
#include <stdexcept>

namespace storeapi::testing {
namespace {

// A socket listening on address:port in the network namespace `netns`: made by a thread
// that joins it (a socket stays in the namespace it was made in, whoever uses it later).
int listen_in(const std::string& netns, const std::string& address, std::uint16_t port) {
  const int ns = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0) {
    if (ns >= 0) ::close(ns);
    throw std::runtime_error("cannot join network namespace " + netns);
  }
  ::close(ns);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_port = htons(port);
  ::inet_pton(AF_INET, address.c_str(), &at.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port));
  }
  return fd;
}

}  // namespace

PrimaryCheck::PrimaryCheck(const NetLab::Host& host, std::uint16_t port, std::string cluster_url)
    : cluster_url_(std::move(cluster_url)) {
  std::promise<int> listening;
  auto listener = listening.get_future();
  thread_ = std::thread([this, &host, port, &listening] {
    int fd = -1;
    try {
      fd = listen_in(host.netns, host.address, port);
      listening.set_value(fd);
    } catch (...) {
      listening.set_exception(std::current_exception());
      return;
    }
    serve(fd);
  });
  try {
    listener.get();
  } catch (...) {
    thread_.join();
    throw;
  }
}

PrimaryCheck::~PrimaryCheck() {
  stop_ = true;
  thread_.join();
}

bool PrimaryCheck::is_primary() {
  // One connection kept, as Patroni keeps one: a backend forked per check would make the
  // check slower than HAProxy's timeout on a loaded machine.
  try {
    if (!conn_) conn_ = std::make_unique<pqxx::connection>(cluster_url_);
    pqxx::nontransaction work(*conn_);
    return work.exec1("select pg_is_in_recovery()")[0].as<bool>() == false;
  } catch (const std::exception&) {
    conn_.reset();
    return false;  // a cluster that does not answer leads nothing
  }
}

void PrimaryCheck::serve(int listener) {
  while (!stop_) {
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    // HAProxy's check is one small request: read up to its blank line, answer, close.
    timeval timeout{1, 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string request;
    char buffer[1024];
    for (ssize_t n; request.find("\r\n\r\n") == std::string::npos &&
                    (n = ::recv(client, buffer, sizeof buffer, 0)) > 0;)
      request.append(buffer, static_cast<std::size_t>(n));
    const bool ok = request.starts_with("GET /primary ") && is_primary();
    const std::string answer = ok ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                  : "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    ::send(client, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(client);
  }
  ::close(listener);
}

}  // namespace storeapi::testing
