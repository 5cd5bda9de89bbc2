#include "runtime/uring_support.hpp"

#include <liburing.h>
#include <sys/utsname.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace storeapi::runtime {
namespace {

// The operations the runtime submits (reactor.cpp, io.cpp, net.cpp).
struct Op {
  int code;
  const char* name;
};
constexpr std::array kOpsUsed{
    Op{IORING_OP_ACCEPT, "ACCEPT"},           Op{IORING_OP_RECV, "RECV"},
    Op{IORING_OP_SEND, "SEND"},               Op{IORING_OP_READ, "READ"},
    Op{IORING_OP_WRITE, "WRITE"},             Op{IORING_OP_POLL_ADD, "POLL_ADD"},
    Op{IORING_OP_TIMEOUT, "TIMEOUT"},         Op{IORING_OP_LINK_TIMEOUT, "LINK_TIMEOUT"},
    Op{IORING_OP_ASYNC_CANCEL, "ASYNC_CANCEL"},
};

// "6.1.0-18-amd64" -> {6, 1}; {0, 0} when unreadable.
std::pair<int, int> kernel_version(const std::string& release) {
  int major = 0, minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

constexpr const char* kSeccompFix =
    "Under Docker or Podman, whose default seccomp profile blocks io_uring, run the container with a profile "
    "that allows io_uring_setup, io_uring_enter and io_uring_register (e.g. --security-opt seccomp=unconfined, "
    "or the default profile with those three added). Elsewhere check sysctl kernel.io_uring_disabled (must be 0, "
    "or 1 with this user in kernel.io_uring_group) and any SystemCallFilter= of the systemd unit.";

}  // namespace

std::optional<std::string> uring_problem(const UringFacts& facts) {
  const std::string kernel = "Linux " + (facts.kernel_release.empty() ? std::string("?") : facts.kernel_release);
  const std::string needed = "Linux " + std::to_string(kMinKernelMajor) + "." + std::to_string(kMinKernelMinor);
  switch (facts.setup_errno) {
    case 0: break;
    case EPERM:
    case EACCES:
      return "io_uring is not permitted here (io_uring_setup: " + std::string(std::strerror(facts.setup_errno)) +
             "): a seccomp filter or kernel.io_uring_disabled blocks it. " + kSeccompFix;
    case ENOSYS:
      return "this kernel (" + kernel + ") has no io_uring, or a seccomp filter hides it (io_uring_setup: " +
             std::strerror(ENOSYS) + "). storeapi needs " + needed + " or newer with io_uring enabled. " + kSeccompFix;
    case ENOMEM:
      return "io_uring_setup failed for lack of memory (" + std::string(std::strerror(ENOMEM)) +
             "): raise the locked-memory limit (ulimit -l, LimitMEMLOCK= in the unit) or free memory.";
    default:
      return "io_uring_setup failed: " + std::string(std::strerror(facts.setup_errno)) + " (" + kernel +
             "; storeapi needs " + needed + " or newer).";
  }
  const auto [major, minor] = kernel_version(facts.kernel_release);
  if (major != 0 && (major < kMinKernelMajor || (major == kMinKernelMajor && minor < kMinKernelMinor)))
    return "this kernel (" + kernel + ") is too old: storeapi uses multishot accept and fd-wide cancellation, "
           "which need " + needed + " or newer. Upgrade the kernel.";
  if (!facts.missing_ops.empty()) {
    std::string names;
    for (const char* op : facts.missing_ops) names += (names.empty() ? "" : ", ") + std::string(op);
    return "this kernel (" + kernel + ") lacks io_uring operations storeapi uses (" + names + "). storeapi needs " +
           needed + " or newer.";
  }
  return std::nullopt;
}

void check_uring_support() {
  UringFacts facts;
  utsname names{};
  if (::uname(&names) == 0) facts.kernel_release = names.release;
  io_uring ring{};
  const int rc = io_uring_queue_init(8, &ring, 0);
  std::vector<const char*> missing;
  if (rc < 0) {
    facts.setup_errno = -rc;
  } else {
    if (io_uring_probe* probe = io_uring_get_probe_ring(&ring)) {
      for (const Op& op : kOpsUsed)
        if (!io_uring_opcode_supported(probe, op.code)) missing.push_back(op.name);
      io_uring_free_probe(probe);
    }
    io_uring_queue_exit(&ring);
  }
  facts.missing_ops = missing;
  if (std::optional<std::string> problem = uring_problem(facts)) throw std::runtime_error(*problem);
}

}  // namespace storeapi::runtime
