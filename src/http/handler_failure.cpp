#include "http/handler_failure.hpp"

#include <unistd.h>

namespace storeapi::http {

std::string describe_handler_failure(std::string_view request_id, std::exception_ptr failure) {
  std::string line = "storeapi: ";
  line.append(request_id).append(": handler failed: ");
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    line.append(e.what());
  } catch (...) {
    line.append("an exception that is not a std::exception");
  }
  line.push_back('\n');
  return line;
}

void report_handler_failure(std::string_view request_id, std::exception_ptr failure) noexcept {
  try {
    const std::string line = describe_handler_failure(request_id, failure);
    [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  } catch (...) {
    // Out of memory while describing a failure: the 500 is still answered.
  }
}

}  // namespace storeapi::http
