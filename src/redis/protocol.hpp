#pragma once
// RESP through hiredis: its command formatter and its incremental reply parser, with
// none of its I/O (the core's io_uring does that, redis/client.hpp).
#include <hiredis/hiredis.h>

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace storeapi::redis {

struct FreeReply {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, FreeReply>;

struct FreeReader {
  void operator()(redisReader* r) const noexcept { redisReaderFree(r); }
};

// Appends one command (its arguments as bulk strings) to `out`.
void append_command(std::string& out, std::span<const std::string_view> args);
inline void append_command(std::string& out, std::initializer_list<std::string_view> args) {
  append_command(out, std::span<const std::string_view>(args.begin(), args.size()));
}

// Replies from a byte stream, in order, however the stream was cut.
class ReplyReader {
 public:
  ReplyReader();

  // False when the stream is not RESP (the connection must be dropped).
  bool feed(const char* data, std::size_t size);
  // The next whole reply, or null when more bytes are needed; sets `broken` on a
  // protocol error.
  Reply next(bool& broken);
  // Forgets any partial reply (a new connection starts a new stream).
  void reset();

 private:
  std::unique_ptr<redisReader, FreeReader> reader_;
};

// The reply is an error whose message starts with `code` (e.g. "NOSCRIPT").
bool is_error(const redisReply& reply, std::string_view code);

}  // namespace storeapi::redis
