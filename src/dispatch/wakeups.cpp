#include "dispatch/wakeups.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

#include "db/channels.hpp"
#include "dispatch/config.hpp"

namespace storeapi::dispatch {
namespace {

// The reactor serves one LISTEN connection: a small ring and a minimal receive-buffer
// ring (the listener never receives through it).
constexpr runtime::Reactor::Options kReactorOptions{.sq_entries = 16, .recv_buffers = 1, .recv_buffer_size = 64};

}  // namespace

Wakeups::EventFd::EventFd() : fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

Wakeups::EventFd::~EventFd() { ::close(fd); }

Wakeups::Wakeups(const std::string& database_url)
    : listener_(database_url, db::kEventsChannel,
                [fd = event_fd_.fd](std::string_view) {
                  // Adds to the counter; fails only when it is about to overflow, which
                  // still leaves it readable.
                  const std::uint64_t one = 1;
                  [[maybe_unused]] ssize_t written = ::write(fd, &one, sizeof one);
                },
                db::ListenerOptions{.application_name = kApplicationName}),
      reactor_(1, [this](runtime::Reactor&) { listener_.start(); }, kReactorOptions) {}

Wakeups::~Wakeups() = default;

bool Wakeups::take() noexcept {
  std::uint64_t count = 0;
  return ::read(event_fd_.fd, &count, sizeof count) == sizeof count && count > 0;
}

}  // namespace storeapi::dispatch
