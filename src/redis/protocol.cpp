#include "redis/protocol.hpp"

#include <new>
#include <vector>

namespace storeapi::redis {

void append_command(std::string& out, std::span<const std::string_view> args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  char* command = nullptr;
  int length = redisFormatCommandArgv(&command, static_cast<int>(argv.size()), argv.data(), lengths.data());
  if (length < 0) throw std::bad_alloc();
  out.append(command, static_cast<std::size_t>(length));
  redisFreeCommand(command);
}

ReplyReader::ReplyReader() : reader_(redisReaderCreate()) {
  if (!reader_) throw std::bad_alloc();
}

ReplyReader::~ReplyReader() { redisReaderFree(reader_); }

void ReplyReader::reset() {
  redisReader* fresh = redisReaderCreate();
  if (!fresh) throw std::bad_alloc();
  redisReaderFree(reader_);
  reader_ = fresh;
}

bool ReplyReader::feed(const char* data, std::size_t size) {
  return redisReaderFeed(reader_, data, size) == REDIS_OK;
}

Reply ReplyReader::next(bool& broken) {
  void* reply = nullptr;
  if (redisReaderGetReply(reader_, &reply) != REDIS_OK) {
    broken = true;
    return nullptr;
  }
  return Reply(static_cast<redisReply*>(reply));
}

bool is_error(const redisReply& reply, std::string_view code) {
  return reply.type == REDIS_REPLY_ERROR && std::string_view(reply.str, reply.len).starts_with(code);
}

}  // namespace storeapi::redis
