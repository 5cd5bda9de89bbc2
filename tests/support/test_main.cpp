// The main of every GoogleTest binary of the project. GoogleTest's own exits 0 when a
// case skipped itself, so meson reported OK for a binary whose case never ran and the
// skip read as a pass. Here a run with no failure and at least one skipped case exits 77,
// which meson's gtest and exitcode protocols both report as SKIP (the GNU convention);
// a failure still exits 1, whatever was skipped.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& run = *testing::UnitTest::GetInstance();
  if (status != 0 || run.skipped_test_count() == 0) return status;
  std::fprintf(stderr, "%d of %d tests skipped (listed above as SKIPPED), none failed: reported as SKIP\n",
               run.skipped_test_count(), run.test_to_run_count());
  return 77;
}
