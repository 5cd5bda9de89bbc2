// openloop: an open-loop HTTP/1.1 load generator (generator.hpp), for bench/profile.
//   openloop [options] http://127.0.0.1:PORT/PATH
//     --rate R            requests per second over all connections (0: closed loop, the
//                         saturation rate; default 0)
//     --connections N     default 64        --threads N    generator threads, default 1
//     --duration S        seconds, default 10   --drain S  default 5 (generator.hpp)
//     --method M          default GET       --body TEXT    sent with Content-Length
//     --header 'N: v'     repeatable        --targets-file F  one target per line, in turn
//     --hgrm FILE         the latency distribution in HdrHistogram's .hgrm format
// "{n}" in a target, header or body becomes a number unique within the run.
// Prints "name value" lines: offered_rate, achieved_rate, answered, non_2xx, broken,
// unfinished, and latencies (µs, from each request's intended send time) p50_us, p90_us,
// p99_us, p99.9_us, p99.99_us, max_us, mean_us. Exit code 1 if any request was not a 2xx
// answer or went unanswered.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "generator.hpp"

namespace {

using namespace storeapi::bench;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "openloop: %s (usage: see the top of bench/openloop/main.cpp)\n", problem.c_str());
  std::exit(2);
}

double number(std::string_view text, std::string_view option) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 0)
    usage("bad value for " + std::string(option) + ": " + std::string(text));
  return value;
}

struct Url {
  std::string host;  // host:port, for the Host header
  std::uint16_t port = 0;
  std::string target;
};

Url parse_url(std::string_view url) {
  constexpr std::string_view scheme = "http://127.0.0.1:";
  if (!url.starts_with(scheme)) usage("the URL must start with " + std::string(scheme));
  url.remove_prefix(scheme.size());
  const auto slash = url.find('/');
  const auto port = url.substr(0, slash);
  Url out;
  out.port = static_cast<std::uint16_t>(number(port, "the URL's port"));
  out.host = "127.0.0.1:" + std::string(port);
  out.target = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  return out;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) usage("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  LoadPlan plan;
  plan.connections = 64;
  std::string method = "GET", body, hgrm, url_text;
  std::vector<std::string> headers, targets;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!arg.starts_with("--")) {
      url_text = arg;
      continue;
    }
    if (i + 1 >= argc) usage("missing value for " + std::string(arg));
    const std::string value = argv[++i];
    if (arg == "--rate") plan.rate = number(value, arg);
    else if (arg == "--connections") plan.connections = static_cast<unsigned>(number(value, arg));
    else if (arg == "--threads") plan.threads = static_cast<unsigned>(number(value, arg));
    else if (arg == "--duration") plan.duration = std::chrono::nanoseconds(static_cast<long long>(number(value, arg) * 1e9));
    else if (arg == "--drain") plan.drain = std::chrono::nanoseconds(static_cast<long long>(number(value, arg) * 1e9));
    else if (arg == "--method") method = value;
    else if (arg == "--body") body = value;
    else if (arg == "--header") headers.push_back(value);
    else if (arg == "--targets-file") targets = read_lines(value);
    else if (arg == "--hgrm") hgrm = value;
    else usage("unknown option " + std::string(arg));
  }
  if (url_text.empty()) usage("no URL");
  if (plan.connections == 0) usage("--connections must be at least 1");
  const Url url = parse_url(url_text);
  if (targets.empty()) targets.push_back(url.target);

  try {
    const RequestTemplate requests(method, targets, url.host, headers, body);
    const LoadResult result = run_load(plan, requests, url.port);
    const auto& h = result.latency;
    const auto us = [](std::uint64_t ns) { return static_cast<double>(ns) / 1e3; };
    std::printf("offered_rate %.1f\nachieved_rate %.1f\nanswered %llu\nnon_2xx %llu\nbroken %llu\nunfinished %llu\n",
                plan.rate, result.seconds > 0 ? static_cast<double>(result.answered) / result.seconds : 0.0,
                static_cast<unsigned long long>(result.answered), static_cast<unsigned long long>(result.non_2xx),
                static_cast<unsigned long long>(result.broken), static_cast<unsigned long long>(result.unfinished));
    std::printf("p50_us %.1f\np90_us %.1f\np99_us %.1f\np99.9_us %.1f\np99.99_us %.1f\nmax_us %.1f\nmean_us %.1f\n",
                us(h.percentile(50)), us(h.percentile(90)), us(h.percentile(99)), us(h.percentile(99.9)),
                us(h.percentile(99.99)), us(h.max()), h.mean() / 1e3);
    if (!hgrm.empty()) {
      std::ofstream out(hgrm);
      h.write_hgrm(out);
      if (!out) usage("cannot write " + hgrm);
    }
    return result.non_2xx == 0 && result.unfinished == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "openloop: %s\n", e.what());
    return 1;
  }
}
