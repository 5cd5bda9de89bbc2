// A real Prometheus (Debian's `prometheus`) scrapes a running server and dispatcher: PromQL returns the
// requests and the 429s this test caused. Prometheus runs on a free loopback port with a
// throwaway config and data directory, and is killed at the end of the test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/regex.hpp"
#include "auth/auth_fixture.hpp"
#include "support/dispatcher_process.hpp"
#include "support/free_port.hpp"
#include "support/poll.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

class Prometheus {
 public:
  // Scrapes each {job, port} every second.
  explicit Prometheus(const std::vector<std::pair<std::string, std::uint16_t>>& jobs) : port_(free_port()) {
    char dir[] = "/tmp/storeapi-prometheus-XXXXXX";
    dir_ = ::mkdtemp(dir);
    std::ofstream config(dir_ / "prometheus.yml");
    config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n";
    for (const auto& [job, port] : jobs)
      config << "  - job_name: " << job << "\n    static_configs:\n      - targets: ['127.0.0.1:" << port << "']\n";
    config.close();
    std::vector<std::string> args{"prometheus",
                                  "--config.file=" + (dir_ / "prometheus.yml").string(),
                                  "--storage.tsdb.path=" + (dir_ / "data").string(),
                                  "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                  "--log.level=warn"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test
      ::execvp("prometheus", argv.data());
      ::_exit(127);
    }
  }
  ~Prometheus() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    std::filesystem::remove_all(dir_);
  }
  std::uint16_t port() const { return port_; }

  // The single value of an instant query, or -1 while it has none.
  double query(const std::string& promql) {
    std::string encoded;
    for (unsigned char c : promql) {
      if (std::isalnum(c)) encoded += static_cast<char>(c);
      else {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%%%02X", c);
        encoded += hex;
      }
    }
    try {
      HttpClient prometheus(port_, std::chrono::seconds(5));
      prometheus.not_the_api();
      HttpResponse r = prometheus.get("/api/v1/query?query=" + encoded);
      std::smatch m;
      if (r.status == 200 && std::regex_search(r.body, m, std::regex(R"re("value":\[[0-9.]+,"([^"]+)"\])re")))
        return std::stod(m[1]);
    } catch (const std::exception&) {
      // not listening yet
    }
    return -1;
  }

 private:
  std::uint16_t port_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
};

using PrometheusScrape = AuthTest;

TEST_F(PrometheusScrape, PromQlSeesTheRequestsAndThe429sThisTestCaused) {
  auto store = db_.create_store("pro");
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "2"});
  TestKey key = create_key(store.id, "read");
  int throttled = 0;
  for (int i = 0; i < 6; ++i) throttled += get("/v1/store", bearer(key.key)).status == 429;
  ASSERT_GE(throttled, 1);

  DispatcherProcess dispatcher({{"STOREAPI_DATABASE_URL", api_url(db_)}});
  ASSERT_TRUE(eventually([&] { return dispatcher.metrics_port() != 0; })) << dispatcher.stderr_text();

  Prometheus prometheus({{"storeapi", server().metrics_port()}, {"storeapi-dispatch", dispatcher.metrics_port()}});
  EXPECT_TRUE(eventually(
      [&] { return prometheus.query(R"(sum(storeapi_http_requests_total{route="/v1/store"}))") == 6; },
      std::chrono::seconds(60)))
      << prometheus.query(R"(sum(storeapi_http_requests_total{route="/v1/store"}))");
  EXPECT_EQ(prometheus.query(R"(sum(storeapi_http_requests_total{route="/v1/store",status="429"}))"), throttled);
  EXPECT_EQ(prometheus.query(R"(sum(storeapi_rate_limited_requests_total{plan="pro"}))"), throttled);
  EXPECT_EQ(prometheus.query(R"(up{job="storeapi"})"), 1);
  EXPECT_TRUE(eventually([&] { return prometheus.query(R"(up{job="storeapi-dispatch"})") == 1; }));
  EXPECT_EQ(prometheus.query(R"(sum(storeapi_dispatch_webhook_attempts_total))"), 0);
}

}  // namespace
}  // namespace storeapi::testing
