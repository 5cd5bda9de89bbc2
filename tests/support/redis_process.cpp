#include "support/redis_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "support/free_port.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {

RedisProcess::RedisProcess() : port_(free_port()) { start(); }

void RedisProcess::start() {
  ProcessOptions options;
  options.binary = "/usr/bin/redis-server";  // an absolute path wins over the build directory
  options.args = {"--port", std::to_string(port_), "--bind", "127.0.0.1", "--unixsocket", socket_path(),
                  "--save", "", "--appendonly", "no",
                  "--daemonize", "no", "--loglevel", "warning"};
  options.inherit_settings = false;
  options.wait_for_listening = false;
  process_ = std::make_unique<ServerProcess>(options);
  if (!eventually([&] { return command("PING") == "+PONG"; }))
    throw std::runtime_error("redis-server did not start: " + process_->stdout_text() + process_->stderr_text());
}

RedisProcess::~RedisProcess() { kill(); }

void RedisProcess::kill() {
  if (process_) process_->kill();
  process_.reset();
  ::unlink(socket_path().c_str());  // SIGKILL leaves it behind
}

std::string RedisProcess::command(const std::string& line) const {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::string request = line + "\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      char c;
      while (::recv(fd, &c, 1, 0) == 1 && c != '\r') answer.push_back(c);
    }
  }
  ::close(fd);
  return answer;
}

}  // namespace storeapi::testing
