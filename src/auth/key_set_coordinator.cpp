#include "auth/key_set_coordinator.hpp"

#include <string>

#include "common/backoff.hpp"
#include "metrics/registry.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::auth {
namespace {

// The load retries while the database cannot answer, as the pool reconnects.
constexpr std::chrono::milliseconds kRetryMin{50};
constexpr std::chrono::milliseconds kRetryMax{2'000};

// Rows of a page that share its last prefix may continue on the next page; the next page
// starts after every hash with that prefix ('g' follows every hex digit), which the set
// holds already.
constexpr char kPastPrefix = 'g';

// Rows per page: a page ties up one of the core's connections for a few milliseconds.
constexpr std::size_t kPageRows = 50'000;

}  // namespace

namespace {
constexpr db::Column kKeyHashPageParams[] = {{"after", db::Type::text}, {"rows", db::Type::int8}};
}  // namespace

const db::Statement kKeyHashPage{
    "auth_key_hash_page",
    "select left(key_hash, 16) as prefix from api_keys where key_hash > $1 order by key_hash limit $2",
    kKeyHashPageParams, KeyHashPage::columns};

KeySetCoordinator::KeySetCoordinator(db::Pool& pool, Publish publish)
    : pool_(pool),
      publish_(std::move(publish)),
      shared_(std::make_shared<const KeyPrefixes>()),
      hashes_(metrics::Registry::process()
                  .gauge("storeapi_key_set_hashes", "API key hashes the node knows (8 bytes each, shared by its cores).")
                  .with({})),
      loads_(metrics::Registry::process()
                 .counter("storeapi_key_set_loads_total",
                          "Loads of every API key hash from the database (at start and after each LISTEN reconnect).")
                 .with({})) {}

void KeySetCoordinator::heard(std::string_view payload) {
  if (payload == "*") {
    complete_ = false;
    runtime::spawn(load(++epoch_));
    return;
  }
  constexpr std::string_view kKey = "key:";
  if (!payload.starts_with(kKey)) return;
  if (std::optional<KeyPrefix> prefix = parse_key_prefix(payload.substr(kKey.size()))) added_.push_back(*prefix);
  if (added_.size() >= kCompactAfter) publish({});
}

runtime::task<void> KeySetCoordinator::load(std::uint64_t epoch) {
  std::vector<KeyPrefix> loaded;
  const std::string page_rows = std::to_string(kPageRows);
  std::string after;  // every hash is greater than ""
  Backoff retry(kRetryMin, kRetryMax);
  for (;;) {
    db::Unit unit;
    unit.add(kKeyHashPage, {std::string_view(after), std::string_view(page_rows)});
    if (co_await pool_.run(unit) != db::Outcome::done || !unit.result(0).ok()) {
      if (epoch != epoch_) co_return;  // a newer load runs
      co_await runtime::sleep_for(retry.next());
      continue;
    }
    retry.reset();
    const db::Result& page = unit.result(0);
    for (int row = 0; row < page.rows(); ++row)
      if (std::optional<KeyPrefix> prefix = parse_key_prefix(page.row<KeyHashPage>(row).prefix())) loaded.push_back(*prefix);
    if (static_cast<std::size_t>(page.rows()) < kPageRows) break;
    after = std::string(page.row<KeyHashPage>(page.rows() - 1).prefix()) + kPastPrefix;
  }
  loads_.inc();
  if (epoch == epoch_) complete_ = true;
  publish(std::move(loaded));
}

void KeySetCoordinator::publish(std::vector<KeyPrefix> more) {
  more.insert(more.end(), added_.begin(), added_.end());
  added_.clear();
  auto shared = std::make_shared<const KeyPrefixes>(merge_prefixes(*shared_, std::move(more)));
  hashes_.add(static_cast<std::int64_t>(shared->size()) - static_cast<std::int64_t>(shared_->size()));
  shared_ = shared;
  publish_(std::move(shared), complete_);
}

}  // namespace storeapi::auth
