#pragma once
// The Store Commerce API as an http::Handler: one instance per core.
#include "app/config.hpp"
#include "http/handler.hpp"

namespace storeapi::api {

class Application final : public http::Handler {
 public:
  explicit Application(const app::Config& config);
  runtime::task<void> handle(const http::Request& req, http::Response& res) override;
  void reject(http::Rejection why, std::string_view request_id, http::Response& res) override;

 private:
  const app::Config& config_;
};

}  // namespace storeapi::api
