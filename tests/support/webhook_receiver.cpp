#include "support/webhook_receiver.hpp"

#include <llhttp.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>
#include <utility>

namespace storeapi::testing {
namespace {

std::int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A socket bound to 127.0.0.1 on a port the kernel picks; returns the port.
int bind_loopback(int fd) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot bind a loopback socket");
  return ntohs(addr.sin_port);
}

// llhttp callbacks collect one request at a time; finished ones queue up in `done`.
struct ParseState {
  ReceivedRequest current;
  std::string field;
  bool in_value = false;
  std::vector<ReceivedRequest> done;
};

ParseState& state(llhttp_t* p) { return *static_cast<ParseState*>(p->data); }

int on_url(llhttp_t* p, const char* at, std::size_t n) {
  state(p).current.target.append(at, n);
  return 0;
}

int on_header_field(llhttp_t* p, const char* at, std::size_t n) {
  ParseState& s = state(p);
  if (s.in_value) {
    s.field.clear();
    s.in_value = false;
  }
  for (std::size_t i = 0; i < n; ++i) s.field.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(at[i]))));
  return 0;
}

int on_header_value(llhttp_t* p, const char* at, std::size_t n) {
  ParseState& s = state(p);
  s.in_value = true;
  s.current.headers[s.field].append(at, n);
  return 0;
}

int on_body(llhttp_t* p, const char* at, std::size_t n) {
  state(p).current.body.append(at, n);
  return 0;
}

int on_message_complete(llhttp_t* p) {
  ParseState& s = state(p);
  s.current.method = llhttp_method_name(static_cast<llhttp_method_t>(p->method));
  s.current.received_at_micros = now_micros();
  s.done.push_back(std::move(s.current));
  s.current = {};
  s.field.clear();
  s.in_value = false;
  return 0;
}

// One connection's bytes: plain, or through TLS when the receiver has a certificate (the
// handshake happens on construction).
class Stream {
 public:
  Stream(int fd, SSL_CTX* tls) : fd_(fd), ssl_(tls ? SSL_new(tls) : nullptr, &SSL_free) {
    if (tls) open_ = ssl_ && SSL_set_fd(ssl_.get(), fd) == 1 && SSL_accept(ssl_.get()) == 1;
  }
  bool open() const { return open_; }

  // Bytes read (0 or less: closed or failed).
  long receive(char* buf, std::size_t size) {
    if (ssl_) return SSL_read(ssl_.get(), buf, static_cast<int>(size));
    return ::recv(fd_, buf, size, 0);
  }

  bool send_all(const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      long n = ssl_ ? SSL_write(ssl_.get(), data.data() + sent, static_cast<int>(data.size() - sent))
                    : ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  int fd_;
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl_;
  bool open_ = true;
};

}  // namespace

std::string ReceivedRequest::header(const std::string& lower_case_name) const {
  auto it = headers.find(lower_case_name);
  return it == headers.end() ? "" : it->second;
}

WebhookReceiver::WebhookReceiver(const std::optional<TlsIdentity>& tls)
    : behaviour_([](const ReceivedRequest&, std::size_t) { return Reply{}; }) {
  if (tls) {
    SSL_CTX* context = SSL_CTX_new(TLS_server_method());
    tls_ = context;
    if (!context || SSL_CTX_use_certificate_chain_file(context, tls->certificate_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(context, tls->key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      SSL_CTX_free(context);
      throw std::runtime_error("cannot load the receiver's certificate " + tls->certificate_file);
    }
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  port_ = bind_loopback(listen_fd_);
  if (::listen(listen_fd_, 512) != 0) throw std::runtime_error("listen failed");
  acceptor_ = std::thread([this] { accept_loop(); });
}

WebhookReceiver::~WebhookReceiver() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  changed_.notify_all();
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  for (auto& t : threads_) t.join();
  ::close(listen_fd_);
  SSL_CTX_free(static_cast<SSL_CTX*>(tls_));
}

void WebhookReceiver::set_behaviour(Behaviour behaviour) {
  std::lock_guard lock(mutex_);
  behaviour_ = std::move(behaviour);
}

std::string WebhookReceiver::url(const std::string& path) const {
  return (tls_ ? "https" : "http") + ("://127.0.0.1:" + std::to_string(port_)) + path;
}

std::vector<ReceivedRequest> WebhookReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t WebhookReceiver::count() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

bool WebhookReceiver::wait_for_count(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

void WebhookReceiver::accept_loop() {
  while (true) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard lock(mutex_);
    if (fd < 0 || stopping_) {
      if (fd >= 0) ::close(fd);
      if (stopping_) return;
      continue;
    }
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

Reply WebhookReceiver::decide(const ReceivedRequest& request) {
  std::lock_guard lock(mutex_);
  Reply reply = behaviour_(request, requests_.size());
  requests_.push_back(request);
  changed_.notify_all();
  return reply;
}

void WebhookReceiver::sleep_unless_stopping(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, delay, [&] { return stopping_; });
}

void WebhookReceiver::serve(int fd) {
  // SSL_write writes with write(), not send(MSG_NOSIGNAL): a client gone mid-answer must
  // not end the test with SIGPIPE. Blocked in this thread, the write fails with EPIPE.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  Stream stream(fd, static_cast<SSL_CTX*>(tls_));
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  settings.on_url = on_url;
  settings.on_header_field = on_header_field;
  settings.on_header_value = on_header_value;
  settings.on_body = on_body;
  settings.on_message_complete = on_message_complete;
  llhttp_t parser;
  llhttp_init(&parser, HTTP_REQUEST, &settings);
  ParseState parse;
  parser.data = &parse;
  char buf[16384];
  bool open = stream.open();
  while (open) {
    long n = stream.receive(buf, sizeof buf);
    if (n <= 0 || llhttp_execute(&parser, buf, static_cast<std::size_t>(n)) != HPE_OK) break;
    for (auto& request : std::exchange(parse.done, {})) {
      Reply reply = decide(request);
      if (reply.delay.count() > 0) sleep_unless_stopping(reply.delay);
      std::string response = "HTTP/1.1 " + std::to_string(reply.status) + " Test\r\nContent-Length: " +
                             std::to_string(reply.body.size()) + "\r\nContent-Type: text/plain\r\n";
      for (const auto& [name, value] : reply.headers) response += name + ": " + value + "\r\n";
      response += "\r\n" + reply.body;
      if (!stream.send_all(response)) open = false;
    }
  }
  std::lock_guard lock(mutex_);
  connections_.erase(std::find(connections_.begin(), connections_.end(), fd));
  ::close(fd);
}

ClosedPort::ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)), port_(bind_loopback(fd_)) {}

ClosedPort::~ClosedPort() { ::close(fd_); }

std::string ClosedPort::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hooks"; }

}  // namespace storeapi::testing
