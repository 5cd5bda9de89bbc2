// The io_uring start-up check's messages: each cause is named with its fix.
#include "runtime/uring_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <span>
#include <string>

namespace storeapi::runtime {
namespace {

using ::testing::HasSubstr;

UringFacts facts(int setup_errno, std::string kernel_release, std::span<const char* const> missing_ops = {}) {
  UringFacts f;
  f.setup_errno = setup_errno;
  f.kernel_release = std::move(kernel_release);
  f.missing_ops = missing_ops;
  return f;
}

TEST(UringSupport, ThisMachineCanRunTheServer) { EXPECT_NO_THROW(check_uring_support()); }

TEST(UringSupport, ANewEnoughKernelWithEveryOperationIsFine) {
  EXPECT_EQ(uring_problem(facts(0, "6.1.0-18-amd64")), std::nullopt);
  EXPECT_EQ(uring_problem(facts(0, "5.19.0")), std::nullopt);
}

TEST(UringSupport, ABlockedSetupNamesSeccompAndTheFix) {
  const auto problem = uring_problem(facts(EPERM, "6.1.0"));
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("not permitted"));
  EXPECT_THAT(*problem, HasSubstr("seccomp"));
  EXPECT_THAT(*problem, HasSubstr("--security-opt seccomp="));
  EXPECT_THAT(*problem, HasSubstr("kernel.io_uring_disabled"));
}

TEST(UringSupport, NoIoUringAtAllNamesTheKernelNeeded) {
  const auto problem = uring_problem(facts(ENOSYS, "4.19.0"));
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("Linux 4.19.0"));
  EXPECT_THAT(*problem, HasSubstr("Linux 5.19 or newer"));
}

TEST(UringSupport, AnOldKernelIsTooOldEvenWhenSetupWorks) {
  const auto problem = uring_problem(facts(0, "5.15.0-91-generic"));
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("too old"));
  EXPECT_THAT(*problem, HasSubstr("Linux 5.19"));
}

TEST(UringSupport, MissingOperationsAreListed) {
  constexpr std::array<const char*, 2> missing{"SEND", "LINK_TIMEOUT"};
  const auto problem = uring_problem(facts(0, "6.1.0", missing));
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("SEND, LINK_TIMEOUT"));
}

TEST(UringSupport, LockedMemoryShortageSaysWhichLimit) {
  const auto problem = uring_problem(facts(ENOMEM, "6.1.0"));
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("LimitMEMLOCK"));
}

}  // namespace
}  // namespace storeapi::runtime
