// The HTTP request reader on arbitrary bytes, received whole and split at points the
// fuzzer chooses (pipelined requests included). Beyond not crashing: the split must not
// change what is read (the same requests, the same rejection), since TCP may cut a
// stream anywhere; every request read is one the reader vouches for (a padded body, a
// path that is the target's prefix).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "http/reader_driver.hpp"

using storeapi::testing::ReaderOutcome;

namespace {

// Small limits, so that the fuzzer reaches 413 and 431 with short inputs.
constexpr storeapi::http::ReaderLimits kLimits{.max_header_bytes = 512, .max_body_bytes = 1024, .initial_buffer = 64};

void check(bool ok, const char* what, const ReaderOutcome& whole, const ReaderOutcome& split) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::fprintf(stderr, "whole:\n");
  std::fprintf(stderr, "%zu requests, rejection %d\n", whole.requests.size(),
               whole.rejection ? static_cast<int>(*whole.rejection) : -1);
  std::fprintf(stderr, "split:\n%zu requests, rejection %d\n", split.requests.size(),
               split.rejection ? static_cast<int>(*split.rejection) : -1);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  // Up to 8 cut points first, then the stream itself.
  std::vector<std::size_t> cuts(input.ConsumeIntegralInRange<std::size_t>(0, 8));
  for (auto& cut : cuts) cut = input.ConsumeIntegral<std::uint16_t>();
  const std::string stream = input.ConsumeRemainingBytesAsString();

  std::vector<std::string_view> pieces;
  std::string_view rest = stream;
  for (std::size_t cut : cuts) {
    const std::size_t n = rest.empty() ? 0 : cut % (rest.size() + 1);
    pieces.push_back(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  pieces.push_back(rest);

  const ReaderOutcome whole = storeapi::testing::feed_pieces({stream}, kLimits);
  const ReaderOutcome split = storeapi::testing::feed_pieces(pieces, kLimits);
  check(whole.requests == split.requests, "the same requests whatever the split", whole, split);
  check(whole.rejection.has_value() == split.rejection.has_value(), "a rejection whatever the split", whole, split);
  check(!whole.rejection || whole.rejection == split.rejection, "the same rejection whatever the split", whole, split);
  check(whole.rejection || whole.mid_request == split.mid_request, "an unfinished request whatever the split", whole,
        split);
  for (const auto& r : whole.requests) {
    check(r.body_padded, "bodies are padded", whole, split);
    check(r.target.starts_with(r.path), "the path is the target's start", whole, split);
    check(r.body.size() <= kLimits.max_body_bytes, "bodies within the limit", whole, split);
  }
  return 0;
}
