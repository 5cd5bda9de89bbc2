#pragma once
// A connected pair of Unix stream sockets for tests of socket operations; closed when the
// object goes.
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace storeapi::testing {

struct SocketPair {
  int a = -1, b = -1;
  SocketPair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) throw std::runtime_error("socketpair");
    a = fds[0];
    b = fds[1];
  }
  ~SocketPair() {
    ::close(a);
    ::close(b);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
};

}  // namespace storeapi::testing
