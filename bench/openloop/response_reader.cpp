#include "response_reader.hpp"

namespace storeapi::bench {

ResponseReader::ResponseReader() {
  llhttp_settings_init(&settings_);
  settings_.on_message_complete = &ResponseReader::on_message_complete;
  llhttp_init(&parser_, HTTP_RESPONSE, &settings_);
  parser_.data = this;
}

int ResponseReader::on_message_complete(llhttp_t* parser) {
  auto* self = static_cast<ResponseReader*>(parser->data);
  self->status_ = parser->status_code;
  return HPE_PAUSED;  // stop here: the caller records the response before reading on
}

ResponseReader::Progress ResponseReader::feed(const char* data, std::size_t size) {
  switch (llhttp_execute(&parser_, data, size)) {
    case HPE_OK:
      return Progress::need_more;
    case HPE_PAUSED:
      llhttp_resume(&parser_);
      return Progress::complete;
    default:
      return Progress::malformed;
  }
}

}  // namespace storeapi::bench
