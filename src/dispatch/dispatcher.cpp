#include "dispatch/dispatcher.hpp"

#include "common/service_notify.hpp"
#include "common/url_parts.hpp"
#include "dispatch/excerpt.hpp"
#include "dispatch/log.hpp"
#include "dispatch/notification_mail.hpp"
#include "dispatch/render.hpp"
#include "dispatch/webhook_request.hpp"

#include <pqxx/pqxx>

#include <algorithm>
#include <array>

namespace storeapi::dispatch {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstReconnectDelay{500};
constexpr milliseconds kMaxReconnectDelay{30'000};
// When work is due but another dispatcher holds it (SKIP LOCKED), look again this soon
// rather than spinning.
constexpr milliseconds kMinPassInterval{25};
// The backlog gauges are refreshed at most this often (a few count queries).
constexpr milliseconds kBacklogInterval{5'000};

std::int64_t unix_seconds(timefmt::Micros t) { return t / 1'000'000; }

std::string describe_retry(const std::optional<milliseconds>& retry_in) {
  if (!retry_in) return "giving up";
  return "retry in " + std::to_string(retry_in->count()) + " ms";
}

// " (trace <id>)" for a log line about a job of a traced request, so that the line can be
// found from the request's access-log line; empty when the job has no trace id.
std::string trace_note(const std::string& trace_id) { return trace_id.empty() ? "" : " (trace " + trace_id + ")"; }

}  // namespace

Dispatcher::Dispatcher(Config config)
    : config_(std::move(config)),
      transfers_({config_.webhook_ca_file, config_.webhook_destinations, config_.smtp_ca_file}),
      wakeups_(config_.database_url),
      rng_(std::random_device{}()),
      pass_at_(Clock::now()),
      connect_at_(Clock::now()),
      reconnect_backoff_(kFirstReconnectDelay, kMaxReconnectDelay),
      backlog_at_(Clock::now()),
      partitions_(config_.database_url, config_.retention),
      partitions_at_(Clock::now()) {}

template <typename Step>
bool Dispatcher::with_database(Step step) {
  try {
    step();
    return true;
  } catch (const pqxx::failure& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    const milliseconds delay = reconnect_backoff_.next();
    log_line("database: " + what + "; reconnecting in " + std::to_string(delay.count()) + " ms");
    outbox_.reset();
    connect_at_ = Clock::now() + delay;
    return false;
  }
}

void Dispatcher::connect_if_due(Clock::time_point now) {
  if (outbox_ || now < connect_at_) return;
  if (with_database([&] { outbox_ = std::make_unique<Outbox>(config_.database_url, config_.lease); })) {
    reconnect_backoff_.reset();
    pass_at_ = now;  // wake-ups taken while disconnected had no pass: look at once
  }
}

void Dispatcher::take_wakeups(Clock::time_point now) {
  if (wakeups_.take()) pass_at_ = now;
}

std::size_t Dispatcher::room() const {
  return config_.concurrency > transfers_.active() ? config_.concurrency - transfers_.active() : 0;
}

void Dispatcher::pass(Clock::time_point now) {
  if (now >= backlog_at_) {
    metrics_.backlog(outbox_->backlog());
    backlog_at_ = now + kBacklogInterval;
  }
  std::size_t batch = config_.batch_size;
  while (outbox_->fan_out(batch) == batch) {
  }
  std::size_t wanted = std::min(room(), batch);
  std::size_t claimed = 0;
  if (wanted > 0) {
    auto jobs = outbox_->claim_deliveries(wanted);
    claimed = jobs.size();
    for (auto& job : jobs) start_delivery(std::move(job));
  }
  more_waiting_ = wanted > 0 && claimed == wanted;
  if (config_.smtp_url && (wanted = std::min(room(), batch)) > 0) {
    auto jobs = outbox_->claim_notifications(wanted);
    more_waiting_ = more_waiting_ || jobs.size() == wanted;
    for (auto& job : jobs) start_notification(std::move(job));
  }
  if (more_waiting_) {
    // Claim more at once while there is room; otherwise when transfers finish.
    pass_at_ = room() > 0 ? now : now + config_.poll_interval;
    return;
  }
  auto due = outbox_->next_due(config_.smtp_url.has_value()).value_or(config_.poll_interval);
  pass_at_ = now + std::clamp(due, kMinPassInterval, config_.poll_interval);
}

void Dispatcher::start_delivery(DeliveryJob job) {
  timefmt::Micros started = timefmt::now_micros();
  auto post = webhook_request(job, unix_seconds(started), config_.webhook_timeout);
  if (!post) {
    TransferResult refused;
    refused.error = "the endpoint's secret cannot sign (not whsec_ + base64); nothing was sent";
    on_delivery_finished(job, started, refused);
    return;
  }
  std::uint64_t tag = next_tag_++;
  transfers_.start(tag, std::move(*post));
  in_flight_.emplace(tag, InFlight{std::move(job), started});
}

void Dispatcher::start_notification(NotificationJob job) {
  timefmt::Micros started = timefmt::now_micros();
  try {
    Mail mail = notification_mail(job, config_.smtp_from, unix_seconds(started));
    std::uint64_t tag = next_tag_++;
    transfers_.start(tag, MailSend{*config_.smtp_url, mail.from_address, mail.to, format_mail(mail),
                                   config_.smtp_timeout, config_.smtp_requires_tls()});
    in_flight_.emplace(tag, InFlight{std::move(job), started});
  } catch (const RenderError& e) {
    log_line("notification " + job.id + " (" + job.template_name + ")" + trace_note(job.trace_id) + ": " + e.what() +
             "; giving up");
    metrics_.email(false);
    unrecorded_notifications_.push_back({job.store_id, job.id, job.attempt, false, e.what(), std::nullopt, job.created_at});
  }
}

void Dispatcher::collect_finished() {
  for (const TransferResult& result : transfers_.take_finished()) {
    auto it = in_flight_.find(result.tag);
    if (it == in_flight_.end()) continue;
    if (auto* delivery = std::get_if<DeliveryJob>(&it->second.job))
      on_delivery_finished(*delivery, it->second.started_at, result);
    else
      on_notification_finished(std::get<NotificationJob>(it->second.job), result);
    in_flight_.erase(it);
  }
}

void Dispatcher::on_delivery_finished(const DeliveryJob& job, timefmt::Micros started_at,
                                      const TransferResult& result) {
  DeliveryOutcome outcome;
  outcome.store_id = job.store_id;
  outcome.delivery_id = job.delivery_id;
  outcome.attempt = job.attempt;
  outcome.attempted_at = started_at;
  outcome.trace_id = job.trace_id;
  outcome.event_created_at = job.event_created_at;
  outcome.latency_ms = static_cast<int>(result.latency.count());
  if (result.response_code > 0) {
    outcome.status = static_cast<int>(result.response_code);
    outcome.response = response_excerpt(result.response_head, result.response_bytes);
  }
  if (!result.completed) outcome.error = result.error;
  bool delivered = result.completed && result.response_code >= 200 && result.response_code <= 299;
  metrics_.attempt(result);
  if (delivered) metrics_.delivered(static_cast<double>(timefmt::now_micros() - job.event_created_at) / 1e6);
  if (!delivered) {
    outcome.retry_in = config_.retry_schedule.delay_after(job.round_attempt, rng_);
    std::string why = result.completed ? "HTTP " + std::to_string(result.response_code) : result.error;
    log_line("delivery " + job.delivery_id + " of " + job.message_id + " to " + url::without_secrets(job.url) +
             trace_note(job.trace_id) +
             ": attempt " + std::to_string(job.attempt) + " failed (" + why + "); " + describe_retry(outcome.retry_in));
  }
  unrecorded_deliveries_.push_back(std::move(outcome));
}

void Dispatcher::on_notification_finished(const NotificationJob& job, const TransferResult& result) {
  NotificationOutcome outcome{job.store_id, job.id, job.attempt, result.completed, "", std::nullopt, job.created_at};
  metrics_.email(result.completed);
  if (!result.completed) {
    outcome.error = result.error;
    if (result.response_code > 0) outcome.error += " (SMTP " + std::to_string(result.response_code) + ")";
    outcome.retry_in = config_.retry_schedule.delay_after(job.attempt, rng_);
    log_line("notification " + job.id + " to " + job.recipient + trace_note(job.trace_id) + ": attempt " +
             std::to_string(job.attempt) + " failed (" + outcome.error + "); " + describe_retry(outcome.retry_in));
  }
  unrecorded_notifications_.push_back(std::move(outcome));
}

void Dispatcher::record(Clock::time_point now) {
  if (unrecorded_deliveries_.empty() && unrecorded_notifications_.empty()) return;
  std::vector<std::string> statuses;
  if (!with_database([&] { statuses = outbox_->record(unrecorded_deliveries_, unrecorded_notifications_); }))
    return;  // kept for after the reconnect
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    const DeliveryOutcome& d = unrecorded_deliveries_[i];
    if (statuses[i] == "failed")
      log_line("delivery " + d.delivery_id + trace_note(d.trace_id) + " failed for good after attempt " +
               std::to_string(d.attempt));
    if (statuses[i] == "pending" && d.retry_in)
      pass_at_ = std::min(pass_at_, now + std::max(*d.retry_in, kMinPassInterval));
  }
  for (const auto& n : unrecorded_notifications_)
    if (!n.sent && n.retry_in) pass_at_ = std::min(pass_at_, now + std::max(*n.retry_in, kMinPassInterval));
  unrecorded_deliveries_.clear();
  unrecorded_notifications_.clear();
  if (more_waiting_) pass_at_ = now;  // room has opened up for work left waiting
}

void Dispatcher::keep_partitions(Clock::time_point now) {
  if (now < partitions_at_) return;
  partitions_at_ = now + partitions_.interval();
  try {
    const Partitions::Pass pass = partitions_.maintain();
    for (const auto& slot : pass.dropped) log_line("outbox partition " + slot + " expired: dropped");
    metrics_.outbox_slots(pass.slots_end, config_.retention.partition.count());
  } catch (const std::exception& e) {
    // Its own connection: the outbox's work goes on; the next interval tries again.
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    log_line("outbox partitions: " + what);
  }
}

void Dispatcher::run(int stop_fd) {
  if (!config_.smtp_url) log_line("STOREAPI_SMTP_URL is not set: e-mail notifications stay queued until it is");
  log_line("started: " + std::to_string(config_.retry_schedule.retries()) + " retries over " +
           std::to_string(config_.retry_schedule.total().count()) + " s, timeout " +
           std::to_string(config_.webhook_timeout.count()) + " ms, concurrency " +
           std::to_string(config_.concurrency) + ", outbox kept " + std::to_string(config_.retention.keep.count()) +
           " s in slots of " + std::to_string(config_.retention.partition.count()) + " s");
  // systemd Type=notify: ready once configured (the database may come later: it is
  // retried, and the outbox loses nothing meanwhile).
  notify_service_manager("READY=1");
  bool stopping = false;
  Clock::time_point stop_by{};
  while (true) {
    // New work first (a NOTIFY means a write just committed), then the outcomes of
    // finished transfers, whose commit waits for the disk.
    Clock::time_point now = Clock::now();
    if (!stopping) {
      connect_if_due(now);
      take_wakeups(now);
      if (outbox_ && now >= pass_at_) with_database([&] { pass(now); });
      if (outbox_) keep_partitions(now);
    }
    if (outbox_) record(now);
    if (stopping && (in_flight_.empty() || now >= stop_by)) break;

    std::array<WatchedFd, 2> watched{WatchedFd{stop_fd}, WatchedFd{wakeups_.fd()}};
    Clock::time_point until = stopping ? stop_by : outbox_ ? std::min(pass_at_, partitions_at_) : connect_at_;
    auto timeout = std::clamp(std::chrono::duration_cast<milliseconds>(until - now), milliseconds(0),
                              config_.poll_interval);
    transfers_.wait(std::span(watched.data(), stopping ? 1 : 2), timeout);
    now = Clock::now();
    if (watched[0].readable && !stopping) {
      stopping = true;
      stop_by = now + config_.shutdown_grace;
      log_line("stopping: finishing " + std::to_string(in_flight_.size()) + " transfers in flight");
      notify_service_manager("STOPPING=1");
    }
    collect_finished();
  }
  if (!in_flight_.empty())
    log_line("stopped with " + std::to_string(in_flight_.size()) +
             " transfers unfinished; they are retried when their leases run out");
  if (!outbox_) connect_if_due(Clock::time_point::max());
  if (outbox_) record(Clock::now());
  log_line("stopped");
}

}  // namespace storeapi::dispatch
