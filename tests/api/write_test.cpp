// run_write (api/writes/write.cpp), the flow every write endpoint shares, up to the database: the
// order of its checks and the answer of each, with an endpoint of the test's own. The
// pool never connects, so a write that passes every check gets 503 from it.
#include "api/writes/write.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/routing/read_router.hpp"
#include "api/statements.hpp"
#include "api/writes/write_request.hpp"
#include "api/writes/write_statements.hpp"
#include "runtime/reactor.hpp"
#include "support/run_task.hpp"

namespace storeapi::api {
namespace {

constexpr json::Field kFields[] = {
    {"mode", json::FieldType::string, true},
    {"quantity", json::FieldType::int32},
};

int added = 0;  // how often the endpoint's rules passed and gave its statement (reset by each test)
std::string added_mode;

WriteCall read_mode(const Context& ctx, FieldValues v) {
  if (v[0].text != "set") return Checked::refused(ErrorCode::parameter_invalid, "mode", "Expected set.");
  ++added;
  added_mode = std::string(v[0].text);
  return {kAcceptBooking, ctx.caller.store(), ctx.match.id};
}

constexpr WriteEndpoint kEndpoint{kFields, read_mode};

class RunWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    added = 0;
    added_mode.clear();
    match_.id = "booking-1";  // the path's id, a parameter of the endpoint's statement
  }

  // A request with this body, headers and query string (views into the fixture's strings).
  http::Request request(std::string body, std::vector<http::Header> headers, std::string query) {
    body_ = std::move(body);
    body_.append(http::Request::kBodyPadding, '\0');  // simdjson reads past the end
    headers_ = std::move(headers);
    query_ = std::move(query);
    http::Request req;
    req.method = http::Method::post;
    req.method_text = "POST";
    req.path = "/v1/test";
    req.query = query_;
    req.body = std::string_view(body_).substr(0, body_.size() - http::Request::kBodyPadding);
    req.request_id = "req_test";
    req.trace_id = "0af7651916cd43dd8448eb211c80319c";  // the statement's last parameter
    req.headers = &headers_;
    return req;
  }

  // Runs the write for a request with this body, headers and query string.
  void write(std::string body, std::vector<http::Header> headers, std::string query = "") {
    const http::Request req = request(std::move(body), std::move(headers), std::move(query));
    res_.reset();
    Context ctx{req, res_, caller_, match_, services_};
    runtime::Reactor reactor(0, {});
    testing::run_task(reactor, run_write(ctx, kEndpoint));
  }

  // Reads the request as run_write does, into buffers_ (the request stays in req_).
  WriteRequest read(std::string body, std::vector<http::Header> headers, std::string query = "") {
    req_ = request(std::move(body), std::move(headers), std::move(query));
    Context ctx{req_, res_, caller_, match_, services_};
    return read_write(ctx, kEndpoint, buffers_);
  }

  std::string code() const { return std::string(res_.notes.error_code); }
  bool body_has(std::string_view text) const { return res_.body.find(text) != std::string::npos; }

  db::Pool pool_{db::PoolOptions{}, statements()};  // never started: every unit is refused
  json::BodyParser body_parser_;
  db::PodAddressBook pod_book_;
  Pods pods_{pool_, nullptr, pod_book_, std::chrono::milliseconds(10)};  // main only, no standbys
  ReadRouter read_router_{pods_, nullptr, nullptr};
  auth::KeyCache keys_;
  auth::RateLimiter limiter_;
  auth::Authenticator authenticator_{pool_, keys_, limiter_};
  std::function<void(std::string_view)> forget_store_ = [](std::string_view) {};
  std::string cursor_secret_;
  Services services_{pods_, read_router_, body_parser_, authenticator_, forget_store_, cursor_secret_};
  auth::Caller caller_ = [] {
    auth::Caller c;
    c.pod = "main";
    return c;
  }();
  Match match_;
  std::string body_, query_;
  std::vector<http::Header> headers_;
  http::Response res_;
  http::Request req_;
  WriteBuffers buffers_;
};

const std::vector<http::Header> kJson{{"Content-Type", "application/json"}};

TEST_F(RunWrite, AQueryStringComesFirst) {
  write("not json", {}, "x=1");
  EXPECT_EQ(res_.status, 400);
  EXPECT_EQ(code(), "parameter_unknown");
  EXPECT_EQ(added, 0);
}

TEST_F(RunWrite, ABodyMustSayItIsJson) {
  write(R"({"mode":"set"})", {});
  EXPECT_EQ(res_.status, 415);
  EXPECT_EQ(code(), "unsupported_media_type");
  write(R"({"mode":"set"})", {{"Content-Type", "text/plain"}});
  EXPECT_EQ(res_.status, 415);
  EXPECT_EQ(added, 0);
}

TEST_F(RunWrite, TheBodyParserThenTheEndpointsRules) {
  write("{", kJson);
  EXPECT_EQ(res_.status, 400);
  EXPECT_EQ(code(), "invalid_json");
  write(R"({"quantity":1})", kJson);
  EXPECT_EQ(code(), "parameter_missing");
  EXPECT_TRUE(body_has(R"("param":"mode")"));
  write(R"({"mode":"adjust"})", kJson);
  EXPECT_EQ(res_.status, 400);
  EXPECT_EQ(code(), "parameter_invalid");
  EXPECT_TRUE(body_has("Expected set."));
  EXPECT_EQ(added, 0);
}

// The key's format is checked after the body: a bad body is answered as such first.
TEST_F(RunWrite, TheIdempotencyKeysFormatAfterTheBody) {
  std::vector<http::Header> bad_key = kJson;
  bad_key.push_back({"Idempotency-Key", ""});
  write(R"({"mode":"adjust"})", bad_key);
  EXPECT_TRUE(body_has("Expected set."));
  write(R"({"mode":"set"})", bad_key);
  EXPECT_EQ(res_.status, 400);
  EXPECT_TRUE(body_has(R"("param":"Idempotency-Key")"));
  // The rules passed and gave the statement once, with the request read; the key's format
  // stopped it before the database (400, not the never-started pool's 503).
  EXPECT_EQ(added, 1);
}

TEST_F(RunWrite, AValidWriteReachesTheDatabase) {
  write(R"({"mode":"set","quantity":3})", kJson);
  EXPECT_EQ(added, 1);
  EXPECT_EQ(added_mode, "set");
  EXPECT_EQ(res_.status, 503);  // the pool has no connection
  EXPECT_EQ(code(), "service_unavailable");
  EXPECT_FALSE(res_.extra_headers.empty());  // Retry-After
}

// An empty body is {}: with a required field, that is the field missing, not a 415.
TEST_F(RunWrite, AnEmptyBodyIsAnEmptyObject) {
  write("", {});
  EXPECT_EQ(res_.status, 400);
  EXPECT_EQ(code(), "parameter_missing");
}

// read_write alone, on the same request as run_write's tests.
class ReadWrite : public RunWrite {};

// One value holds what the write needs to its answer: the endpoint's statement (its rules
// run once), the key with its fingerprint, and the Authorization a fenced retry sends again.
TEST_F(ReadWrite, TheRequestIsReadIntoOneValue) {
  std::vector<http::Header> headers = kJson;
  headers.push_back({"Authorization", "Bearer first"});
  headers.push_back({"Idempotency-Key", "k-1"});
  headers.push_back({"authorization", "Bearer second"});
  const WriteRequest write = read(R"({"quantity":3,"mode":"set"})", headers);
  EXPECT_EQ(added, 1);
  ASSERT_TRUE(write.call.verdict().ok());
  EXPECT_EQ(&write.call.statement(), &kAcceptBooking);
  EXPECT_EQ(write.call.params().size(), 2u);  // the store and the path's id
  EXPECT_TRUE(write.keyed());
  EXPECT_EQ(write.key.text, "k-1");
  const FieldValues values = std::span(buffers_.values).first(std::size(kFields));
  EXPECT_EQ(write.key.fingerprint, fingerprint(req_, ValidatedBody{kFields, values}));
  EXPECT_EQ(write.authorization, "Bearer first");
}

// A refused body keeps its key, bound to the raw bytes (the rejection is stored under it).
TEST_F(ReadWrite, ARefusedBodysKeyIsBoundToItsRawBytes) {
  std::vector<http::Header> headers = kJson;
  headers.push_back({"Idempotency-Key", "k-1"});
  const WriteRequest write = read(R"({"mode":"adjust"})", headers);
  EXPECT_EQ(added, 0);
  EXPECT_EQ(write.call.verdict(), Checked::refused(ErrorCode::parameter_invalid, "mode", "Expected set."));
  EXPECT_TRUE(write.keyed());
  EXPECT_EQ(write.key.fingerprint, fingerprint(req_, std::nullopt));
}

// A refused query string is answered as it is: nothing after it is read, the key neither.
TEST_F(ReadWrite, ARefusedQueryStringIsReadFirstAndAlone) {
  std::vector<http::Header> headers = kJson;
  headers.push_back({"Idempotency-Key", "k-1"});
  headers.push_back({"Authorization", "Bearer first"});
  const WriteRequest write = read(R"({"mode":"set"})", headers, "a%20b=1");
  EXPECT_EQ(added, 0);
  EXPECT_EQ(write.call.verdict().code(), ErrorCode::parameter_unknown);
  EXPECT_EQ(write.call.verdict().param(), "a b");
  EXPECT_EQ(write.key.state, IdempotencyKey::State::absent);
  EXPECT_FALSE(write.authorization);
}

TEST(WriteCall, ARefusalOrTheStatementWithItsOwnParameters) {
  const WriteCall refused = Checked::refused(ErrorCode::parameter_invalid, "mode");
  EXPECT_FALSE(refused.verdict().ok());
  EXPECT_TRUE(refused.params().empty());
  const WriteCall call{kChangeStock, "s", std::int64_t{3}, db::Param(std::nullopt), "true"};
  EXPECT_TRUE(call.verdict().ok());
  EXPECT_EQ(&call.statement(), &kChangeStock);
  EXPECT_EQ(call.params().size(), 4u);
}

}  // namespace
}  // namespace storeapi::api
