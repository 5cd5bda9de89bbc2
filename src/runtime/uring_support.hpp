#pragma once
// The start-up check that the kernel and the process's seccomp filter allow the io_uring
// features the runtime uses. Without it a blocked io_uring shows up as a bare
// "Operation not permitted" from the first core; with it the server exits naming the
// cause and the fix.
#include <optional>
#include <span>
#include <string>

namespace storeapi::runtime {

// The oldest kernel with everything the runtime uses: multishot accept, and
// IORING_ASYNC_CANCEL_FD / _ALL (both Linux 5.19).
inline constexpr int kMinKernelMajor = 5;
inline constexpr int kMinKernelMinor = 19;

struct UringFacts {
  int setup_errno = 0;              // errno of io_uring_setup (0: a ring was created)
  std::string kernel_release;       // uname -r
  std::span<const char* const> missing_ops;  // opcodes the kernel's probe lacks, by name
};

// What is wrong, as one message naming the cause and the fix; nullopt when io_uring is
// usable. Pure, so that every branch is tested without the kernel that causes it.
std::optional<std::string> uring_problem(const UringFacts& facts);

// Probes this process's io_uring: sets up a small ring, asks the kernel which opcodes it
// supports, and throws std::runtime_error with uring_problem() of what it found, if any
// (start-up code fails by exception: docs/ARCHITECTURE.md, "Errors").
void check_uring_support();

}  // namespace storeapi::runtime
