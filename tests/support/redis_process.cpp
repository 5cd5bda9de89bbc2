#include "support/redis_process.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <initializer_list>
#include <stdexcept>

#include "support/free_port.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

// A RESP command of bulk strings.
std::string resp(std::initializer_list<std::string> args) {
  std::string out = "*";
  out.append(std::to_string(args.size())).append("\r\n");
  for (const std::string& arg : args) out.append("$").append(std::to_string(arg.size())).append("\r\n").append(arg).append("\r\n");
  return out;
}

bool read_line(int fd, std::string& line) {
  line.clear();
  char c;
  while (::recv(fd, &c, 1, 0) == 1) {
    if (c == '\n') return true;
    if (c != '\r') line.push_back(c);
  }
  return false;
}

}  // namespace

RedisProcess::RedisProcess(RedisOptions options) : options_(std::move(options)), port_(free_port()) { start(); }

std::string RedisProcess::credentials() const {
  if (options_.password.empty()) return "";
  return options_.user + ":" + options_.password + "@";
}

std::string RedisProcess::url(std::uint16_t port) const {
  std::string url = options_.tls ? "rediss://" : "redis://";
  return url.append(credentials()).append(options_.address).append(":").append(std::to_string(port ? port : port_));
}

void RedisProcess::start() {
  {
    // The password goes in a file, not in redis-server's argv.
    std::ofstream config(config_path());
    if (!options_.user.empty()) {
      config << "user default off\n";
      config << "user " << options_.user << " on >" << options_.password << " ~storeapi:* +@all\n";
    } else if (!options_.password.empty()) {
      config << "requirepass \"" << options_.password << "\"\n";
    }
  }
  ProcessOptions options;
  options.binary = "/usr/bin/redis-server";  // an absolute path wins over the build directory
  options.args = {config_path(), "--bind", options_.address, "--unixsocket", socket_path(),
                  "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"};
  if (!options_.netns.empty()) {
    // ip execs redis-server in the namespace: the process (its pid, its signals) is Redis.
    options.args.insert(options.args.begin(), {"netns", "exec", options_.netns, options.binary});
    options.binary = "/usr/sbin/ip";
  }
  if (options_.tls) {
    const TlsIdentity server = options_.tls->server();
    options.args.insert(options.args.end(),
                        {"--port", "0", "--tls-port", std::to_string(port_), "--tls-cert-file", server.certificate_file,
                         "--tls-key-file", server.key_file, "--tls-ca-cert-file", options_.tls->ca_file(),
                         "--tls-auth-clients", options_.require_client_certificate ? "yes" : "no"});
  } else {
    options.args.insert(options.args.end(), {"--port", std::to_string(port_)});
  }
  options.inherit_settings = false;
  options.wait_for_listening = false;
  process_ = std::make_unique<ServerProcess>(options);
  if (!eventually([&] { return command("PING") == "+PONG"; }))
    throw std::runtime_error("redis-server did not start: " + process_->stdout_text() + process_->stderr_text());
}

RedisProcess::~RedisProcess() {
  kill();
  ::unlink(config_path().c_str());
}

void RedisProcess::kill() {
  if (process_) process_->kill();
  process_.reset();
  ::unlink(socket_path().c_str());  // SIGKILL leaves it behind
}

std::string RedisProcess::command(const std::string& line) const { return talk(line, false); }
std::string RedisProcess::bulk_command(const std::string& line) const { return talk(line, true); }

std::string RedisProcess::talk(const std::string& line, bool whole_bulk) const {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = socket_path();
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    // AUTH as a RESP array: the password may hold spaces or quotes.
    std::string request;
    if (!options_.password.empty())
      request = options_.user.empty() ? resp({"AUTH", options_.password}) : resp({"AUTH", options_.user, options_.password});
    request.append(line).append("\r\n");
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      bool ok = options_.password.empty() || (read_line(fd, answer) && answer == "+OK");
      if (ok && read_line(fd, answer) && whole_bulk && answer.starts_with('$') && answer != "$-1") {
        std::string text(std::stoul(answer.substr(1)) + 2, '\0');
        std::size_t got = 0;
        for (ssize_t n; got < text.size() && (n = ::recv(fd, text.data() + got, text.size() - got, 0)) > 0;) got += n;
        answer = text.substr(0, got >= 2 ? got - 2 : 0);
      }
    }
  }
  ::close(fd);
  return answer;
}

}  // namespace storeapi::testing
