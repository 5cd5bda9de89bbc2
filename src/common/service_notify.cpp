#include "common/service_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace storeapi {

bool notify_service_manager(std::string_view state) {
  const char* socket_name = std::getenv("NOTIFY_SOCKET");
  if (socket_name == nullptr) return false;
  const std::size_t length = std::strlen(socket_name);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (length < 2 || length >= sizeof address.sun_path || (socket_name[0] != '/' && socket_name[0] != '@'))
    return false;
  std::memcpy(address.sun_path, socket_name, length);
  if (socket_name[0] == '@') address.sun_path[0] = '\0';  // abstract namespace
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const auto address_length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  const ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&address), address_length);
  ::close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

}  // namespace storeapi
