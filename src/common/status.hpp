#pragma once
// How a step on the request path or in a core's connection loop went: ok, or failed with
// a one-line reason for the log. The request path and the cores' loops fail by value,
// never by exception or out-parameter (docs/ARCHITECTURE.md, "Errors"); where callers
// branch on the kind of failure the layer has its own enum instead (db::Outcome,
// auth::AuthStatus, http::RequestReader::Result).
#include <string>
#include <utility>

namespace storeapi {

class [[nodiscard]] Status {
 public:
  static Status ok() { return Status(); }
  static Status failed(std::string reason) {
    Status s;
    s.failed_ = true;
    s.reason_ = std::move(reason);
    return s;
  }

  bool is_ok() const noexcept { return !failed_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  Status() = default;
  bool failed_ = false;
  std::string reason_;
};

}  // namespace storeapi
