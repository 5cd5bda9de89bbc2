#include "redis/protocol.hpp"

#include <array>
#include <new>
#include <vector>

namespace storeapi::redis {

void append_command(std::string& out, std::span<const std::string_view> args) {
  // On the request path (a script call per request): the usual few arguments need no
  // allocation of their own.
  constexpr std::size_t kOnStack = 8;
  std::array<const char*, kOnStack> argv_on_stack;
  std::array<std::size_t, kOnStack> lengths_on_stack;
  std::vector<const char*> argv_on_heap;
  std::vector<std::size_t> lengths_on_heap;
  const char** argv = argv_on_stack.data();
  std::size_t* lengths = lengths_on_stack.data();
  if (args.size() > kOnStack) {
    argv_on_heap.resize(args.size());
    lengths_on_heap.resize(args.size());
    argv = argv_on_heap.data();
    lengths = lengths_on_heap.data();
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    argv[i] = args[i].data();
    lengths[i] = args[i].size();
  }
  char* command = nullptr;
  int length = redisFormatCommandArgv(&command, static_cast<int>(args.size()), argv, lengths);
  if (length < 0) throw std::bad_alloc();
  out.append(command, static_cast<std::size_t>(length));
  redisFreeCommand(command);
}

ReplyReader::ReplyReader() : reader_(redisReaderCreate()) {
  if (!reader_) throw std::bad_alloc();
}

void ReplyReader::reset() {
  std::unique_ptr<redisReader, FreeReader> fresh(redisReaderCreate());
  if (!fresh) throw std::bad_alloc();
  reader_ = std::move(fresh);
}

bool ReplyReader::feed(const char* data, std::size_t size) {
  return redisReaderFeed(reader_.get(), data, size) == REDIS_OK;
}

Reply ReplyReader::next(bool& broken) {
  void* reply = nullptr;
  if (redisReaderGetReply(reader_.get(), &reply) != REDIS_OK) {
    broken = true;
    return nullptr;
  }
  return Reply(static_cast<redisReply*>(reply));
}

bool is_error(const redisReply& reply, std::string_view code) {
  return reply.type == REDIS_REPLY_ERROR && std::string_view(reply.str, reply.len).starts_with(code);
}

}  // namespace storeapi::redis
