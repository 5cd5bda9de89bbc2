// Cursors: arbitrary text never decodes under a binding it was not issued for; a position
// encoded under any binding decodes back to itself; and a cursor with one character
// altered decodes to nothing or to that same position (never to another: the MAC binds
// the position).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/lists/cursor.hpp"

using namespace storeapi;
using namespace storeapi::api;

namespace {

void require(bool ok, const char* what, std::string_view cursor) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\ncursor: %.*s\n", what, static_cast<int>(cursor.size()), cursor.data());
  std::abort();
}

bool same(const std::optional<CursorPosition>& p, const CursorPosition& q) {
  return p && p->created_at == q.created_at && p->id == q.id;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const std::string secret = input.ConsumeRandomLengthString(64);
  Uuid store;
  for (auto& b : store.bytes) b = input.ConsumeIntegral<std::uint8_t>();
  CursorBinding binding(api::RouteId::orders_list, store, input.ConsumeBool());
  if (input.ConsumeBool()) binding.add(input.ConsumeBool() ? std::optional<timefmt::Micros>(input.ConsumeIntegral<timefmt::Micros>())
                                                           : std::nullopt);
  const std::string filter = input.ConsumeRandomLengthString(100);
  binding.add(input.ConsumeBool() ? std::optional<std::string_view>(filter) : std::nullopt);
  const crypto::Sha256 digest = binding.digest();

  CursorPosition at;
  at.created_at = input.ConsumeIntegral<timefmt::Micros>();
  for (auto& b : at.id.bytes) b = input.ConsumeIntegral<std::uint8_t>();
  const std::size_t flip_at = input.ConsumeIntegral<std::size_t>();
  const char flip_to = input.ConsumeIntegral<char>();
  const std::string text = input.ConsumeRemainingBytesAsString();

  // Arbitrary text: the fuzzer cannot forge the MAC.
  require(!decode_cursor(secret, digest, text), "arbitrary text does not decode", text);

  std::string cursor(kCursorLength, '\0');
  encode_cursor(secret, digest, at, cursor.data());
  require(same(decode_cursor(secret, digest, cursor), at), "the position round-trips", cursor);

  std::string altered = cursor;
  altered[flip_at % altered.size()] = flip_to;
  const auto decoded = decode_cursor(secret, digest, altered);
  require(!decoded || same(decoded, at), "an altered cursor yields nothing or the same position", altered);
  return 0;
}
