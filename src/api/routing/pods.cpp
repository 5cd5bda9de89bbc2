#include "api/routing/pods.hpp"

namespace storeapi::api {

namespace {

constexpr db::Column kStorePlacementParams[] = {{"store", db::Type::uuid}};

}  // namespace

const db::Statement kStorePlacement{"store_placement", "select pod, placement_epoch from stores where id = $1",
                                    kStorePlacementParams, StorePlacement::columns};

struct Pods::Owned {
  std::unique_ptr<db::Pool> pool;
  std::unique_ptr<db::Standbys> standbys;
  std::unique_ptr<Pod> pod;
};

Pods::Pods(db::Pool& directory, db::Standbys* directory_standbys, db::PodAddressBook& book,
           std::chrono::milliseconds replica_poll)
    : directory_(directory),
      book_(book),
      replica_poll_(replica_poll),
      // Settled before the core listens (api::Application::settled).
      main_(std::string(db::kMainPod), directory, directory_standbys, true) {}

Pods::~Pods() = default;

Pod* Pods::known(std::string_view name) noexcept {
  if (name == main_.name()) return &main_;
  const auto it = others_.find(std::string(name));
  return it == others_.end() ? nullptr : it->second->pod.get();
}

bool Pods::may_have_standbys(std::string_view name) {
  if (const Pod* pod = known(name)) return pod->standbys() != nullptr;
  const std::optional<db::PodAddress> address = book_.find(name);
  return !address || !address->replica_urls.empty();
}

runtime::task<PodLookup> Pods::find(std::string name) {
  Pod* pod = known(name);
  if (!pod) {
    std::optional<db::PodAddress> address = book_.find(name);
    if (!address) {
      co_await reload_for_unknown();
      address = book_.find(name);
    }
    if (!address || address->url.empty()) co_return PodLookup::unavailable();
    pod = known(name);  // another request of this core may have made it meanwhile
    if (!pod) pod = &make(name, *address);
  }
  if (!pod->settled()) {
    // Its first request waits for the first connection attempts, so that it is not
    // refused for a connection still being opened; a pod that is down is settled at once.
    const auto until = runtime::Clock::now() + pod->primary().options().connect_timeout + db::kReplyMargin;
    while (!pod->primary().settled()) {
      const runtime::Woken woken = co_await pod->primary().changed().wait_until(until);
      if (woken != runtime::Woken::signalled) break;
    }
    if (pod->standbys()) co_await pod->standbys()->settle(until);
    pod->mark_settled();
  }
  co_return PodLookup::found(*pod);
}

runtime::task<void> Pods::reload_for_unknown() {
  if (reloading_) {
    while (reloading_) {
      const runtime::Woken woken = co_await reloaded_.wait();
      if (woken != runtime::Woken::signalled) break;
    }
    co_return;
  }
  // Counted from this kind of reload only: a notice's, which may have failed while the
  // directory's connections were still opening, must not hold the next one back.
  if (runtime::Clock::now() - last_unknown_reload_ < kPodReloadInterval) co_return;
  last_unknown_reload_ = runtime::Clock::now();
  co_await reload();
}

runtime::task<void> Pods::reload() {
  reloading_ = true;
  db::Unit unit;
  unit.add(db::kPodAddresses, {});
  if (co_await directory_.run(unit) == db::Outcome::done) book_.replace(unit.result(0));
  reloading_ = false;
  reloaded_.broadcast();
}

Pod& Pods::make(const std::string& name, const db::PodAddress& address) {
  auto owned = std::make_unique<Owned>();
  db::PoolOptions options = directory_.options();
  options.url = address.url;
  options.label = "pod " + name;  // the log names the pod, never its URL
  owned->pool = std::make_unique<db::Pool>(options, directory_.statements());
  if (!address.replica_urls.empty())
    owned->standbys = std::make_unique<db::Standbys>(
        db::StandbyOptions{
            .urls = address.replica_urls, .poll = replica_poll_, .pool = options},
        directory_.statements());
  owned->pod = std::make_unique<Pod>(name, *owned->pool, owned->standbys.get(), false);
  owned->pool->start();
  if (owned->standbys) owned->standbys->start();
  Pod& pod = *owned->pod;
  others_.emplace(name, std::move(owned));
  return pod;
}

}  // namespace storeapi::api
