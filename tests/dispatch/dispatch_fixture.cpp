#include "dispatch_fixture.hpp"

#include "admin/webhooks/webhooks.hpp"
#include "support/runtime_role.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace storeapi::testing {

SmtpSink::SmtpSink(int refuse, const std::optional<TlsIdentity>& tls) {
  dir_ = (std::filesystem::temp_directory_path() / "storeapi-smtp-XXXXXX").string();
  if (!mkdtemp(dir_.data())) throw std::runtime_error("mkdtemp failed");
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  std::string python = STOREAPI_TEST_PYTHON, script = STOREAPI_SMTP_SINK, refuse_text = std::to_string(refuse);
  std::vector<char*> argv = {python.data(), script.data(), dir_.data(), refuse_text.data()};
  std::string certificate = tls ? tls->certificate_file : "", key = tls ? tls->key_file : "";
  if (tls) argv.insert(argv.end(), {certificate.data(), key.data()});
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execv(python.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  close(out[0]);
  if (line.empty()) throw std::runtime_error("the SMTP sink did not start: is python3-aiosmtpd installed (tools/deps)?");
  port_ = std::stoi(line);
}

SmtpSink::~SmtpSink() {
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  std::filesystem::remove_all(dir_);
}

std::vector<std::string> SmtpSink::messages() const {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    out.push_back(text.str());
  }
  return out;
}

std::string event_name(const std::string& uuid) {
  std::string hex;
  for (char c : uuid)
    if (c != '-') hex.push_back(c);
  return "evt_" + hex;
}

void DispatchTest::SetUp() {
  db_ = std::make_unique<TestDatabase>();
  store_ = db_->create_store();
}

Settings DispatchTest::settings() const {
  return {
      {"STOREAPI_DATABASE_URL", api_url(*db_)},
      {"STOREAPI_WEBHOOK_RETRY_SCHEDULE", "1,1"},
      {"STOREAPI_WEBHOOK_TIMEOUT_MS", "1000"},
      {"STOREAPI_SMTP_TIMEOUT_MS", "2000"},
      {"STOREAPI_DISPATCH_LEASE_MS", "4000"},
      {"STOREAPI_DISPATCH_POLL_MS", "1000"},
  };
}

Endpoint DispatchTest::add_endpoint(const std::string& url, const std::string& events) {
  auto conn = db_->connect();
  pqxx::work work(*conn);
  auto hook = admin::add_webhook(work, store_.id, url, events.empty() ? std::nullopt : std::optional(events),
                                 loopback_destinations());
  work.commit();
  return {hook.id, hook.secret};
}

std::string DispatchTest::emit(const std::string& type, const std::string& object_json,
                               const std::string& previous_json) {
  auto conn = db_->connect();
  pqxx::work work(*conn);
  std::string id = work.exec_params1("select api.emit_event($1, $2, $3, $4)", store_.id, type,
                                     object_json, previous_json)[0].c_str();
  work.exec("select pg_notify(api.config('events_channel'), '')");  // as writers wake them
  work.commit();
  return id;
}

std::string DispatchTest::queue_notification(const std::string& kind, const std::string& tmpl,
                                             const std::string& recipient, const std::string& data) {
  auto conn = db_->connect();
  pqxx::work work(*conn);
  std::string id = work.exec_params1("select api.queue_notification($1, $2, $3, $4, $5::jsonb)", store_.id, kind, tmpl,
                                     recipient, data)[0].c_str();
  work.exec("select pg_notify(api.config('events_channel'), '')");  // as writers wake them
  work.commit();
  return id;
}

std::string DispatchTest::emit_order_event(int order_number, const std::string& status) {
  std::string object = R"({"id":"6c0f6a57-0d7c-4b7e-9a55-)" + std::to_string(100000000000 + order_number) +
                       R"(","object":"order","order_number":)" + std::to_string(order_number) +
                       R"(,"status":"completed","fulfillment_status":")" + status +
                       R"(","currency":"EUR","total":"149.00","tracking_number":"TRK)" +
                       std::to_string(order_number) +
                       R"(","tracking_carrier":"DHL","customer":{"name":"Ann Lee","email":"ann@example.com"},)"
                       R"("line_items":[{"product_name":"Mug","quantity":2,"unit_price":"74.50"}],)"
                       R"("created_at":"2026-11-01T10:00:00.000Z","updated_at":"2026-11-21T20:39:02.123Z"})";
  return emit("order.fulfillment_updated", object, R"({"fulfillment_status":"processing"})");
}

std::string DispatchTest::delivery_status(const std::string& event) {
  return value("select string_agg(status, ',') from webhook_deliveries where event_id = '" + event + "'");
}

std::string DispatchTest::value(const std::string& sql) {
  auto conn = db_->connect();
  pqxx::work work(*conn);
  auto field = work.exec1(sql)[0];
  std::string out = field.is_null() ? "" : field.c_str();
  work.commit();
  return out;
}

}  // namespace storeapi::testing
