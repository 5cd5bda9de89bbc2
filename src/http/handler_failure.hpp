#pragma once
// A handler that threw is answered 500 in its stead (http/connection.cpp); this says why,
// once, on stderr, with the request id that ties the line to the client's 500 and to the
// access log line.
#include <exception>
#include <string>
#include <string_view>

namespace storeapi::http {

// "storeapi: req_…: handler failed: <what>\n" (an exception that is no std::exception
// says so instead of its what()).
std::string describe_handler_failure(std::string_view request_id, std::exception_ptr failure);

// Writes that line to stderr in one write, so lines of several cores never interleave.
void report_handler_failure(std::string_view request_id, std::exception_ptr failure) noexcept;

}  // namespace storeapi::http
