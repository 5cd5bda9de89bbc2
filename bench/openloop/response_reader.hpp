#pragma once
// Frames the responses on one keep-alive connection with llhttp (response mode): feed it
// what recv returned, it says when a whole response has arrived and with which status.
// The generator keeps one request in flight per connection, so nothing follows a
// response before the next request is sent.
#include <llhttp.h>

#include <cstddef>

namespace storeapi::bench {

class ResponseReader {
 public:
  ResponseReader();
  ResponseReader(const ResponseReader&) = delete;
  ResponseReader& operator=(const ResponseReader&) = delete;

  enum class Progress { need_more, complete, malformed };
  // After `complete`, status() is the response's status and the next feed() starts the
  // next response.
  Progress feed(const char* data, std::size_t size);
  int status() const noexcept { return status_; }

 private:
  static int on_message_complete(llhttp_t* parser);

  llhttp_settings_t settings_{};
  llhttp_t parser_{};
  int status_ = 0;
};

}  // namespace storeapi::bench
