// The access log: the JSON line's fields, and whole lines on a pipe that several cores
// write to at once (each write is whole lines of at most PIPE_BUF bytes).
#include "http/access_log.hpp"

#include <gtest/gtest.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "metrics/registry.hpp"
#include "runtime/cores.hpp"
#include "support/poll.hpp"

namespace storeapi::http {
namespace {

AccessRecord sample() {
  return {.request_id = "req_0123456789abcdef0123",
          .trace_id = "4bf92f3577b34da6a3ce929d0e0e4736",
          .client = "127.0.0.1:5555",
          .method = "GET",
          .route = "/v1/orders/{id}",
          .path = "/v1/orders/7d0c8a4e-2f1b-4c8e-9d2a-1f5e6b7c8d9e",
          .status = 404,
          .error_code = "resource_not_found",
          .bytes_in = 0,
          .bytes_out = 123,
          .micros = 456,
          .database_micros = 321,
          .store_id = "5b1f6c1e-8c8e-4f4e-9f3e-2d1c0b9a8f7e",
          .key_prefix = "sk_live_AbCd"};
}

TEST(AccessLine, JsonCarriesEveryField) {
  std::string line;
  format_access_line(AccessLogFormat::json, "2026-11-24T00:00:00.000Z", sample(), line);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line,
            R"({"time":"2026-11-24T00:00:00.000Z","request_id":"req_0123456789abcdef0123",)"
            R"("trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","client":"127.0.0.1:5555","method":"GET",)"
            R"("route":"/v1/orders/{id}","path":"/v1/orders/7d0c8a4e-2f1b-4c8e-9d2a-1f5e6b7c8d9e","status":404,)"
            R"("error":"resource_not_found","bytes_in":0,"bytes_out":123,"total_us":456,"db_us":321,)"
            R"("store_id":"5b1f6c1e-8c8e-4f4e-9f3e-2d1c0b9a8f7e","key_prefix":"sk_live_AbCd"})"
            "\n");
}

TEST(AccessLine, JsonNullsWhatIsUnknownAndEscapesThePath) {
  AccessRecord r = sample();
  r.route = {};
  r.error_code = {};
  r.store_id = {};
  r.key_prefix = {};
  r.path = "/a\"b\\c\x01";
  std::string line;
  format_access_line(AccessLogFormat::json, "t", r, line);
  EXPECT_NE(line.find(R"("route":null,"path":"/a\"b\\c\u0001","status":404,"error":null,)"), std::string::npos)
      << line;
  EXPECT_NE(line.find(R"("store_id":null,"key_prefix":null})"), std::string::npos) << line;
}

TEST(AccessLine, AWorstCasePathStillFitsInPipeBuf) {
  AccessRecord r = sample();
  std::string path(8000, '\x01');  // each byte escapes to six
  r.path = path;
  std::string line;
  format_access_line(AccessLogFormat::json, "2026-11-24T00:00:00.000Z", r, line);
  EXPECT_LE(line.size(), static_cast<std::size_t>(PIPE_BUF));
}

TEST(AccessLine, TextKeepsTheOldFormat) {
  std::string line;
  format_access_line(AccessLogFormat::text, "2026-11-24T00:00:00.000Z", sample(), line);
  EXPECT_EQ(line,
            "2026-11-24T00:00:00.000Z req_0123456789abcdef0123 GET /v1/orders/7d0c8a4e-2f1b-4c8e-9d2a-1f5e6b7c8d9e "
            "404 123B 456us\n");
}

std::uint64_t dropped_lines() {
  return metrics::Registry::process().counter("storeapi_access_log_dropped_lines_total", "").with({}).value();
}

// Four cores log bursts of lines of varied length (well above PIPE_BUF per burst) to one
// pipe; every line read back is whole, and read + dropped = written.
TEST(AccessLogOnAPipe, LinesFromSeveralCoresNeverInterleave) {
  constexpr unsigned kCores = 4, kBursts = 20, kLinesPerBurst = 200;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::uint64_t dropped_before = dropped_lines();

  std::string text;  // the reader's until it ended
  std::atomic<std::uint64_t> newlines{0};
  std::thread reader([&] {
    char buf[65536];
    for (;;) {
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n <= 0) break;  // every write end closed
      text.append(buf, static_cast<std::size_t>(n));
      newlines += static_cast<std::uint64_t>(std::count(buf, buf + n, '\n'));
    }
  });

  std::vector<std::unique_ptr<AccessLog>> logs(kCores);
  runtime::Cores cores(kCores, [&](runtime::Reactor& r) {
    logs[r.index()] = std::make_unique<AccessLog>(fds[1], AccessLogFormat::json);
  });
  std::vector<std::string> paths;
  for (unsigned i = 0; i < 64; ++i) paths.push_back("/v1/orders/" + std::string(i * 7, 'a' + static_cast<char>(i % 26)));
  for (unsigned burst = 0; burst < kBursts; ++burst)
    cores.post_all([&](runtime::Reactor& r) {
      for (unsigned i = 0; i < kLinesPerBurst; ++i) {
        AccessRecord rec = sample();
        rec.path = paths[(i + r.index()) % paths.size()];
        rec.micros = r.index();
        logs[r.index()]->record(rec);
      }
    });

  const std::uint64_t total = std::uint64_t{kCores} * kBursts * kLinesPerBurst;
  // Every line has reached the pipe (or was dropped) before the cores stop.
  EXPECT_TRUE(testing::eventually([&] { return newlines.load() + (dropped_lines() - dropped_before) == total; }));
  cores.post_all([](runtime::Reactor& r) { r.stop(); });
  cores.join();
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);

  std::uint64_t whole = 0;
  simdjson::dom::parser parser;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "unterminated last line";
    std::string line = text.substr(start, end - start);
    start = end + 1;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << "torn line: " << line;
    std::string_view path, last_field;
    ASSERT_EQ(doc["path"].get(path), simdjson::SUCCESS) << line;
    ASSERT_EQ(doc["key_prefix"].get(last_field), simdjson::SUCCESS) << line;
    ASSERT_TRUE(path.starts_with("/v1/orders/")) << line;
    ASSERT_EQ(last_field, "sk_live_AbCd") << line;
    ++whole;
  }
  EXPECT_EQ(whole + (dropped_lines() - dropped_before), total);
}

// One core logs into a pipe nobody reads: the pipe and the 1 MiB buffer fill, further
// lines are dropped and counted, the core goes on; once read, every line is either read
// whole or counted as dropped.
TEST(AccessLogOnAPipe, AStalledSinkDropsAndCountsLinesAndTheCoreGoesOn) {
  constexpr std::uint64_t kLines = 20'000;  // about 7 MB of lines: far above pipe + buffer
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::uint64_t dropped_before = dropped_lines();
  std::unique_ptr<AccessLog> log;
  runtime::Cores cores(1, [&](runtime::Reactor&) { log = std::make_unique<AccessLog>(fds[1], AccessLogFormat::json); });
  std::atomic<std::uint64_t> recorded{0};
  auto record = [&](std::uint64_t n) {
    cores.post_all([&, n](runtime::Reactor&) {
      for (std::uint64_t i = 0; i < n; ++i) log->record(sample());
      recorded += n;
    });
  };
  record(kLines);
  ASSERT_TRUE(testing::eventually([&] { return recorded.load() == kLines; }));
  EXPECT_GT(dropped_lines() - dropped_before, kLines / 2);

  std::atomic<std::uint64_t> newlines{0};
  std::thread reader([&] {
    char buf[65536];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
      newlines += static_cast<std::uint64_t>(std::count(buf, buf + n, '\n'));
  });
  auto accounted = [&] { return newlines.load() + (dropped_lines() - dropped_before); };
  EXPECT_TRUE(testing::eventually([&] { return accounted() == kLines; })) << accounted();
  const std::uint64_t dropped = dropped_lines() - dropped_before;
  record(1);  // the log still writes once the sink drains
  EXPECT_TRUE(testing::eventually([&] { return newlines.load() == kLines - dropped + 1; }));
  EXPECT_EQ(dropped_lines() - dropped_before, dropped);

  cores.post_all([](runtime::Reactor& r) { r.stop(); });
  cores.join();
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
}

// A write that fails (the pipe's reader is gone) loses its lines: they are counted.
TEST(AccessLogOnAPipe, TheLinesOfAFailedWriteAreCounted) {
  ::signal(SIGPIPE, SIG_IGN);  // as the server does: EPIPE instead of dying
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  const std::uint64_t dropped_before = dropped_lines();
  std::unique_ptr<AccessLog> log;
  runtime::Cores cores(1, [&](runtime::Reactor&) { log = std::make_unique<AccessLog>(fds[1], AccessLogFormat::json); });
  cores.post_all([&](runtime::Reactor&) {
    for (int i = 0; i < 10; ++i) log->record(sample());
  });
  EXPECT_TRUE(testing::eventually([&] { return dropped_lines() - dropped_before == 10; }))
      << dropped_lines() - dropped_before;
  cores.post_all([](runtime::Reactor& r) { r.stop(); });
  cores.join();
  ::close(fds[1]);
}

// A core stops only after its last lines are written (Server::drain waits for this): with
// the sink full, one line in flight and one waiting, the flush waits for both.
TEST(AccessLogOnAPipe, WhenFlushedWaitsForTheLinesInFlightAndWaiting) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
  std::size_t filler = 0;
  for (char block[4096] = {}; ::write(fds[1], block, sizeof block) > 0;) filler += sizeof block;
  ASSERT_EQ(::fcntl(fds[1], F_SETFL, 0), 0);  // the log's writes wait for room, as on a busy sink
  std::unique_ptr<AccessLog> log;
  runtime::Cores cores(1, [&](runtime::Reactor&) { log = std::make_unique<AccessLog>(fds[1], AccessLogFormat::json); });
  std::atomic<bool> flushed{false}, asked{false};
  cores.post_all([&](runtime::Reactor&) {
    log->record(sample());  // in flight, waiting for room in the pipe
    log->record(sample());  // waits behind it
    log->when_flushed([&] { flushed = true; });
    asked = true;
  });
  ASSERT_TRUE(testing::eventually([&] { return asked.load(); }));
  EXPECT_FALSE(flushed.load());

  std::string out;
  char buf[65536];
  auto read_available = [&] {
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  };
  ASSERT_TRUE(testing::eventually([&] {
    read_available();
    return flushed.load();
  }));
  read_available();
  ASSERT_GE(out.size(), filler);
  EXPECT_EQ(std::count(out.begin() + static_cast<std::ptrdiff_t>(filler), out.end(), '\n'), 2);

  std::atomic<bool> at_once{false};  // nothing waiting: at once
  cores.post_all([&](runtime::Reactor&) { log->when_flushed([&] { at_once = true; }); });
  EXPECT_TRUE(testing::eventually([&] { return at_once.load(); }));
  cores.post_all([](runtime::Reactor& r) { r.stop(); });
  cores.join();
  ::close(fds[1]);
  ::close(fds[0]);
}

}  // namespace
}  // namespace storeapi::http
