#include "common/trace_context.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace storeapi::trace {
namespace {

constexpr std::string_view kValid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceContext, TakesTheTraceIdOfAValidTraceparent) {
  EXPECT_EQ(trace_id_of(kValid), "4bf92f3577b34da6a3ce929d0e0e4736");
  // A later version may append fields.
  EXPECT_EQ(trace_id_of("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds"),
            "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST(TraceContext, RejectsMalformedValues) {
  for (std::string_view bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",             // short
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",      // 00 has no extras
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",            // forbidden version
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",            // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",            // zero parent id
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",            // uppercase
           "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",            // separator
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",            // not hex
           "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",           // future, no dash
       })
    EXPECT_EQ(trace_id_of(bad), "") << bad;
}

TEST(TraceContext, NewTraceIdsAreHexAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    char id[kTraceIdLength];
    new_trace_id(id);
    std::string s(id, sizeof id);
    EXPECT_EQ(s.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(TraceContext, AChildTraceparentCarriesTheTraceWithAFreshSpan) {
  constexpr std::string_view trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  std::set<std::string> spans;
  for (int i = 0; i < 100; ++i) {
    const std::string child = child_traceparent(trace);
    ASSERT_EQ(trace_id_of(child), trace) << child;  // valid, and the same trace
    EXPECT_EQ(child.substr(0, 3), "00-");
    EXPECT_EQ(child.substr(52), "-01");
    spans.insert(child.substr(36, kSpanIdLength));
  }
  EXPECT_EQ(spans.size(), 100u);
}

}  // namespace
}  // namespace storeapi::trace
