#pragma once
// The pods of one core (docs/DECISIONS.md, "Pods"): for each pod this core has served, the
// pool its stores' units run on (the directory's statements and options), its hot
// standbys and its dispatchers' wake-up. `main` is the directory's own pool and standbys
// (STOREAPI_DATABASE_URL, STOREAPI_REPLICA_URLS); another pod's pools are made on the core
// when one of its stores is first served there, from the addresses the directory's `pods`
// table gives (db::PodAddressBook, read again when it does not know the pod). Pods are
// never dropped while the process runs: a unit in flight holds its pool.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/writes/dispatcher_wake.hpp"
#include "db/pod_addresses.hpp"
#include "db/pool.hpp"
#include "db/row.hpp"
#include "db/standbys.hpp"
#include "db/statement.hpp"
#include "runtime/event.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

// A core that meets a pod the book does not know reads the table again at most this
// often: a store placed on a pod this node cannot learn of answers 503 without sending
// every one of its requests to the directory.
inline constexpr std::chrono::milliseconds kPodReloadInterval{1'000};

// (store) → where the directory places it now.
#define STOREAPI_STORE_PLACEMENT_COLUMNS(X) X(pod, text) X(placement_epoch, int8)
STOREAPI_DB_ROW(StorePlacement, STOREAPI_STORE_PLACEMENT_COLUMNS);
extern const db::Statement kStorePlacement;

// One pod as this core serves it. Its one change of state, unsettled → settled, is
// Pods::find's (it waits for the pools' first attempts once).
class Pod {
 public:
  Pod(std::string name, db::Pool& primary, db::Standbys* standbys, bool settled)
      : name_(std::move(name)), primary_(primary), standbys_(standbys), dispatcher_wake_(primary), settled_(settled) {}

  const std::string& name() const noexcept { return name_; }
  db::Pool& primary() const noexcept { return primary_; }
  db::Standbys* standbys() const noexcept { return standbys_; }  // nullptr: none
  // The NOTIFY that reaches the dispatcher of this pod's outbox.
  DispatcherWake& dispatcher_wake() noexcept { return dispatcher_wake_; }
  bool settled() const noexcept { return settled_; }

 private:
  friend class Pods;
  void mark_settled() noexcept { settled_ = true; }

  std::string name_;
  db::Pool& primary_;
  db::Standbys* standbys_;
  DispatcherWake dispatcher_wake_;
  bool settled_;
};

// What Pods::find found: the pod, or none this node can serve now (the directory does not
// list it with an address, or could not be asked): the caller answers 503.
class [[nodiscard]] PodLookup {
 public:
  static PodLookup found(Pod& pod) noexcept { return PodLookup(&pod); }
  static PodLookup unavailable() noexcept { return PodLookup(nullptr); }

  bool ok() const noexcept { return pod_ != nullptr; }
  Pod& pod() const noexcept { return *pod_; }  // only when ok()
  friend bool operator==(const PodLookup&, const PodLookup&) = default;

 private:
  explicit PodLookup(Pod* pod) noexcept : pod_(pod) {}
  Pod* pod_;
};

class Pods {
 public:
  // `directory`, `directory_standbys`: the pool of STOREAPI_DATABASE_URL and its standbys
  // (nullptr: none), which are main's. A new pod's pools copy `directory`'s options and
  // statements; its standbys are polled every `replica_poll`.
  Pods(db::Pool& directory, db::Standbys* directory_standbys, db::PodAddressBook& book,
       std::chrono::milliseconds replica_poll);
  ~Pods();
  Pods(const Pods&) = delete;
  Pods& operator=(const Pods&) = delete;

  // The pod named `name` on this core, its pools made and settled if they are new here;
  // unavailable when the directory does not know it or cannot be asked. A known pod
  // costs one hash lookup.
  runtime::task<PodLookup> find(std::string name);
  // Reads the `pods` table again (the `pod:<name>` and `*` notices). When the directory
  // cannot answer, the book stays as it was: a pod it does not know is looked for again
  // by the next find() that meets it (reload_for_unknown), and nobody waits on this one.
  runtime::task<void> reload();

  // Whether the pod may have standbys: false only when it surely has none (made here
  // without, or listed without). Spares the pools of a pod nothing needs here yet.
  bool may_have_standbys(std::string_view name);

  db::Pool& directory() noexcept { return directory_; }
  const db::PodAddressBook& book() const noexcept { return book_; }

 private:
  struct Owned;
  Pod* known(std::string_view name) noexcept;
  // Reloads for a pod the book does not know, at most once per kPodReloadInterval on this
  // core; a caller that finds a reload running waits for it.
  runtime::task<void> reload_for_unknown();
  Pod& make(const std::string& name, const db::PodAddress& address);

  db::Pool& directory_;
  db::PodAddressBook& book_;
  std::chrono::milliseconds replica_poll_;
  Pod main_;
  std::unordered_map<std::string, std::unique_ptr<Owned>> others_;
  runtime::Clock::time_point last_unknown_reload_{};
  bool reloading_ = false;
  runtime::Event reloaded_;  // a reload ended: whoever waited for it looks again
};

}  // namespace storeapi::api
