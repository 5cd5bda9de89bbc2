// RESP through hiredis: commands are formatted as bulk strings (binary-safe), and replies
// come out whole and in order however the byte stream was cut.
#include <gtest/gtest.h>

#include <string>

#include "redis/protocol.hpp"

namespace storeapi::redis {
namespace {

TEST(RedisProtocol, FormatsEveryArgumentAsABulkString) {
  std::string out;
  append_command(out, {"EVALSHA", "ab", "1", std::string_view("k\r\n\0x", 5)});
  using namespace std::string_literals;
  EXPECT_EQ(out, "*4\r\n$7\r\nEVALSHA\r\n$2\r\nab\r\n$1\r\n1\r\n$5\r\nk\r\n\0x\r\n"s);
  append_command(out, {"PING"});
  EXPECT_TRUE(out.ends_with("*1\r\n$4\r\nPING\r\n"));
}

TEST(RedisProtocol, ReadsRepliesWholeAndInOrderWhateverTheCuts) {
  const std::string stream = "*4\r\n:1\r\n:59\r\n:1\r\n:0\r\n+OK\r\n-NOSCRIPT No matching script\r\n$3\r\nabc\r\n";
  for (std::size_t cut = 1; cut < stream.size(); ++cut) {
    ReplyReader reader;
    std::vector<Reply> replies;
    bool broken = false;
    for (std::size_t at = 0; at < stream.size(); at += cut) {
      ASSERT_TRUE(reader.feed(stream.data() + at, std::min(cut, stream.size() - at)));
      while (Reply r = reader.next(broken)) replies.push_back(std::move(r));
      ASSERT_FALSE(broken);
    }
    ASSERT_EQ(replies.size(), 4u) << "cut " << cut;
    ASSERT_EQ(replies[0]->type, REDIS_REPLY_ARRAY);
    ASSERT_EQ(replies[0]->elements, 4u);
    EXPECT_EQ(replies[0]->element[1]->integer, 59);
    EXPECT_EQ(replies[1]->type, REDIS_REPLY_STATUS);
    EXPECT_TRUE(is_error(*replies[2], "NOSCRIPT"));
    EXPECT_FALSE(is_error(*replies[1], "NOSCRIPT"));
    EXPECT_EQ(std::string(replies[3]->str, replies[3]->len), "abc");
  }
}

TEST(RedisProtocol, ABrokenStreamIsReported) {
  ReplyReader reader;
  bool broken = false;
  reader.feed("?what\r\n", 7);
  EXPECT_EQ(reader.next(broken), nullptr);
  EXPECT_TRUE(broken);
  reader.reset();
  broken = false;
  reader.feed("+PONG\r\n", 7);
  Reply r = reader.next(broken);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(broken);
}

}  // namespace
}  // namespace storeapi::redis
