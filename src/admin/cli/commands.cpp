#include "admin/cli/commands.hpp"

#include "admin/cli/args.hpp"
#include "admin/base/confirmations.hpp"
#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/cli/help.hpp"
#include "admin/base/json.hpp"
#include "admin/keys/keys.hpp"
#include "admin/migrations/migrations.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/pods/pods.hpp"
#include "admin/webhooks/retention.hpp"
#include "admin/migrations/roles.hpp"
#include "admin/seed/seed.hpp"
#include "admin/stores/staff.hpp"
#include "admin/stores/stock_history.hpp"
#include "admin/pods/store_copies.hpp"
#include "admin/move/store_move.hpp"
#include "admin/move/store_restore.hpp"
#include "admin/stores/stores.hpp"
#include "admin/base/validate.hpp"
#include "admin/webhooks/deliveries.hpp"
#include "admin/webhooks/destination.hpp"
#include "admin/webhooks/webhooks.hpp"
#include "common/build_version.hpp"
#include "common/env.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace storeapi::admin {
namespace {

// The connection is the directory's; a command on a store's data reaches the store's pod
// itself (admin/base/pod_connection.hpp).
using Handler = void (*)(JsonWriter&, pqxx::connection&, const Flags&);

struct Command {
  const char* name;  // the command words
  FlagSpec flags;
  Handler handler;
  // Changes what a key may do, or a store's data outside the API (seed): returns only
  // once the running servers applied it (for a seed: each store's reads leave the
  // standbys until they have replayed it, api/routing/read_router.hpp).
  bool waits_for_servers = false;
  // One line for --help (admin/cli/help.hpp); a command without one fails the help test.
  const char* summary = "";
};

// Runs `body` in one transaction that commits only if it returns normally.
template <typename Body>
void in_transaction(pqxx::connection_base& conn, Body body) {
  pqxx::work work(conn);
  body(work);
  work.commit();
}

Retention retention_from_env() {
  try {
    return Retention::from_env();
  } catch (const env::SettingError& e) {
    throw UsageError(e.what());
  }
}

// The directory, then every pod it lists: a store's rows have the same shape wherever
// they are (docs/DECISIONS.md, "Pods").
void cmd_migrate(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  const Retention retention = retention_from_env();
  MigrateOptions options;
  options.lock_timeout = std::chrono::milliseconds(f.count_or("lock-timeout-ms", options.lock_timeout.count()));
  options.attempts = static_cast<int>(f.count_or("attempts", options.attempts));
  if (options.lock_timeout.count() == 0 || options.attempts == 0)
    throw UsageError("--lock-timeout-ms and --attempts must be positive");
  MigrationReport report = migrate(conn, retention, options);
  json.begin_object().field("object", "migrations");
  write_migrations(json, report);
  json.key("pods").begin_array();
  for (const std::string& name : pod_names(conn)) {
    PodConnection pod = connect_to_pod(conn, name);
    if (pod.is_directory()) continue;
    json.begin_object().field("name", name);
    write_migrations(json, migrate(pod.get(), retention, options));
    json.end_object();
  }
  json.end_array().end_object();
}

void cmd_store_create(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  in_transaction(conn, [&](pqxx::work& w) {
    NewStore store{f.get("name"),          f.get("slug"), f.get("currency"), f.get("plan"), f.get("owner-email"),
                   f.find("locale").value_or("en"), f.find("url"),  f.find("pod").value_or("main")};
    std::string id = create_store(w, store);
    copy_store_to_pod(w, id);
    write_store(json, w, id);
  });
}

void cmd_store_set_plan(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  in_transaction(conn, [&](pqxx::work& w) {
    set_plan(w, f.get("store"), f.get("plan"));
    copy_store_to_pod(w, f.get("store"));
    write_store(json, w, f.get("store"));
  });
}

void cmd_store_set_rate_limit(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  std::optional<long> rpm;
  if (f.get("rpm") != "default") {
    rpm = parse_count(f.get("rpm"));
    if (!rpm || *rpm == 0)
      throw UsageError("--rpm must be a positive integer or 'default', got '" + f.get("rpm") + "'");
  }
  in_transaction(conn, [&](pqxx::work& w) {
    set_rate_limit(w, f.get("store"), rpm);
    copy_store_to_pod(w, f.get("store"));
    write_store(json, w, f.get("store"));
  });
}

void cmd_store_move(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  move_store(json, conn, Mover{mover_user(f.find("mover-user")), database_url(f.find("database-url"))}, f.get("store"),
             f.get("to"));
}

void cmd_store_restore(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  restore_store(json, conn, Mover{mover_user(f.find("mover-user")), database_url(f.find("database-url"))},
                f.get("store"), f.get("from"));
}

void cmd_staff_add(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  AccessLevels access = parse_access(f.find("access").value_or(""));
  check_email(f.get("email"), "email");
  in_transaction(conn, [&](pqxx::work& w) {
    require_store(w, f.get("store"));
    std::string staff_id = add_staff(w, f.get("store"), f.get("email"), access);
    copy_store_to_pod(w, f.get("store"));
    write_staff(json, w, f.get("store"), staff_id);
  });
}

void cmd_key_create(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  in_transaction(conn, [&](pqxx::work& w) {
    NewKey request{f.get("store"), f.get("name"), f.get("access"), f.find("scopes").value_or(""),
                   f.find("expires").value_or("never"), f.find("by").value_or("")};
    CreatedKey key = create_key(w, request);
    write_key(json, w, key.id, key.key);
  });
}

void cmd_key_revoke(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  in_transaction(conn, [&](pqxx::work& w) {
    revoke_key(w, f.get("key"));
    write_key(json, w, f.get("key"));
  });
}

void cmd_key_list(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  in_transaction(conn, [&](pqxx::work& w) { write_key_list(json, w, f.get("store")); });
}

void cmd_stock_history(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = connect_to_store_pod(conn, f.get("store"));
  in_transaction(pod.get(), [&](pqxx::work& w) { write_stock_history(json, w, f.get("store"), f.get("variant")); });
}

// The pod of the store whose webhook endpoint `f` names.
PodConnection webhook_pod(pqxx::connection& conn, const Flags& f) {
  return connect_to_pod_holding(conn, [&](pqxx::work& w) { return webhook_store(w, f.get("webhook")); });
}

void cmd_webhook_add(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = connect_to_store_pod(conn, f.get("store"));
  in_transaction(pod.get(), [&](pqxx::work& w) {
    NewWebhook hook = add_webhook(w, f.get("store"), f.get("url"), f.find("events"), webhook_destinations());
    write_webhook(json, w, hook.id, hook.secret);
  });
}

void cmd_webhook_list(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = connect_to_store_pod(conn, f.get("store"));
  in_transaction(pod.get(), [&](pqxx::work& w) { write_webhook_list(json, w, f.get("store")); });
}

void cmd_webhook_disable(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = webhook_pod(conn, f);
  in_transaction(pod.get(), [&](pqxx::work& w) {
    disable_webhook(w, f.get("webhook"));
    write_webhook(json, w, f.get("webhook"));
  });
}

void cmd_webhook_enable(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = webhook_pod(conn, f);
  in_transaction(pod.get(), [&](pqxx::work& w) {
    enable_webhook(w, f.get("webhook"));
    write_webhook(json, w, f.get("webhook"));
  });
}

void cmd_webhook_rotate_secret(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = webhook_pod(conn, f);
  in_transaction(pod.get(), [&](pqxx::work& w) {
    std::string secret = rotate_webhook_secret(w, f.get("webhook"));
    write_webhook(json, w, f.get("webhook"), secret);
  });
}

void cmd_webhook_deliveries(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  long limit = f.count_or("limit", 50);
  if (limit < 1 || limit > 1000) throw UsageError("--limit must be from 1 to 1000");
  PodConnection pod = connect_to_store_pod(conn, f.get("store"));
  in_transaction(pod.get(), [&](pqxx::work& w) {
    write_deliveries(json, w, f.get("store"), f.find("event"), limit, f.find("starting-after"));
  });
}

void cmd_retention(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  PodConnection pod = connect_to_pod(conn, f.find("pod").value_or("main"));
  in_transaction(pod.get(), [&](pqxx::work& w) { write_retention(json, w); });
}

void cmd_event_redeliver(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  auto store = f.find("store");
  PodConnection pod = store ? connect_to_store_pod(conn, *store)
                            : connect_to_pod_holding(conn, [&](pqxx::work& w) { return event_store(w, f.get("event")); });
  in_transaction(pod.get(), [&](pqxx::work& w) { redeliver_event(json, w, f.get("event"), f.find("store")); });
}

void cmd_seed(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  seed::SeedSizes defaults;
  seed::SeedSizes sizes{f.count_or("orders", defaults.orders), f.count_or("products", defaults.products),
                        f.count_or("customers", defaults.customers), f.count_or("bookings", defaults.bookings)};
  PodConnection pod = connect_to_store_pod(conn, f.get("store"));
  in_transaction(pod.get(), [&](pqxx::work& w) { seed_store(json, w, f.get("store"), sizes); });
  // The servers hear of changes on the directory (seed_store's notice went to the pod).
  if (!pod.is_directory()) in_transaction(conn, [&](pqxx::work& w) { notify_store_changed(w, f.get("store")); });
}

void cmd_pod_add(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  NewPod pod{f.get("name"), f.get("url"), {}};
  if (auto list = f.find("replica-urls")) pod.replica_urls = parse_replica_urls(*list);
  add_pod(json, conn, pod, retention_from_env());
}

// Existing deployments, whose runtime role owned the schema (docs/DEPLOY.md "Database
// roles"): on the directory, then on every pod it lists, each in one transaction.
void cmd_owner_transfer(JsonWriter& json, pqxx::connection& conn, const Flags& f) {
  json.begin_object().field("object", "owner_transfer").field("from", f.get("from")).field("to", f.get("to"));
  json.key("pods").begin_array();
  for (const std::string& name : pod_names(conn)) {
    PodConnection pod = connect_to_pod(conn, name);
    pqxx::work work(pod.get());
    transfer_ownership(work, f.get("from"), f.get("to"));
    work.commit();
    json.value(name);
  }
  json.end_array().end_object();
}

void cmd_pod_list(JsonWriter& json, pqxx::connection& conn, const Flags&) {
  in_transaction(conn, [&](pqxx::work& w) { write_pod_list(json, w); });
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"migrate", {{}, {"lock-timeout-ms", "attempts"}}, cmd_migrate, false,
       "apply the migrations not yet applied and the changed SQL functions: the directory, then every pod"},
      {"store create", {{"name", "slug", "currency", "plan", "owner-email"}, {"locale", "url", "pod"}}, cmd_store_create,
       false, "create a store and its owner (a staff member with write access everywhere)"},
      {"store set-plan", {{"store", "plan"}, {}}, cmd_store_set_plan, true, "change a store's plan"},
      {"store set-rate-limit", {{"store", "rpm"}, {}}, cmd_store_set_rate_limit, true,
       "override the plan's rate limit, or go back to it"},
      {"store move", {{"store", "to"}, {"mover-user"}}, cmd_store_move, false,
       "move a store's rows to another pod online (logical replication)"},
      {"store restore", {{"store", "from"}, {"mover-user"}}, cmd_store_restore, false,
       "put one store's rows back as a copy recovered to an earlier time holds them, online"},
      {"staff add", {{"store", "email"}, {"access"}}, cmd_staff_add, false, "add a staff member with dashboard access"},
      {"key create", {{"store", "name", "access"}, {"scopes", "expires", "by"}}, cmd_key_create, true,
       "create an API key (printed once)"},
      {"key revoke", {{"key"}, {}}, cmd_key_revoke, true, "revoke an API key"},
      {"key list", {{"store"}, {}}, cmd_key_list, false, "list a store's keys with their status (never the key)"},
      {"stock history", {{"store", "variant"}, {}}, cmd_stock_history, false,
       "a variant's stock movements, newest first"},
      {"webhook add", {{"store", "url"}, {"events"}}, cmd_webhook_add, false,
       "add a webhook endpoint (its signing secret printed once)"},
      {"webhook list", {{"store"}, {}}, cmd_webhook_list, false, "list a store's webhook endpoints"},
      {"webhook disable", {{"webhook"}, {}}, cmd_webhook_disable, false,
       "stop deliveries to an endpoint (its pending ones fail)"},
      {"webhook enable", {{"webhook"}, {}}, cmd_webhook_enable, false, "resume deliveries to an endpoint"},
      {"webhook rotate-secret", {{"webhook"}, {}}, cmd_webhook_rotate_secret, false,
       "a new signing secret (the old one signs too for 24 h)"},
      {"webhook deliveries", {{"store"}, {"event", "limit", "starting-after"}}, cmd_webhook_deliveries, false,
       "a store's deliveries with their attempts, newest first"},
      {"event redeliver", {{"event"}, {"store"}}, cmd_event_redeliver, false,
       "queue an event again for every enabled endpoint subscribed to it"},
      {"seed", {{"store"}, {"orders", "products", "customers", "bookings"}}, cmd_seed, true,
       "fill an empty store with deterministic demo data"},
      {"retention", {{}, {"pod"}}, cmd_retention, false, "what the outbox keeps, for how long, and its time slots"},
      {"pod add", {{"name", "url"}, {"replica-urls"}}, cmd_pod_add, false,
       "migrate and register a PostgreSQL cluster as a pod (again: migrate it, replace its standbys)"},
      {"pod list", {}, cmd_pod_list, false, "every pod with its standbys and stores"},
      {"owner transfer", {{"from", "to"}, {}}, cmd_owner_transfer, false,
       "once, as a superuser: give every schema object of the directory and the pods to another role"},
  };
  return table;
}

std::vector<CommandHelp> help_entries() {
  std::vector<CommandHelp> entries;
  for (const auto& c : commands()) entries.push_back({c.name, c.summary, &c.flags});
  return entries;
}

bool asks_for_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

// The flags given before the command words (`storeapi-admin --database-url URL pod list`,
// as for git or kubectl), taken off the front of `args`; only the global flags may come
// there.
std::vector<std::string> leading_global_flags(std::span<const std::string>& args) {
  std::vector<std::string> taken;
  while (!args.empty() && args[0].starts_with("--") && !asks_for_help(args[0])) {
    std::string_view name = std::string_view(args[0]).substr(2);
    const bool inline_value = name.find('=') != std::string_view::npos;
    name = name.substr(0, name.find('='));
    if (std::find(std::begin(kGlobalFlags), std::end(kGlobalFlags), name) == std::end(kGlobalFlags))
      throw UsageError("unknown flag " + args[0] + " before the command (only --database-url goes there); "
                       "storeapi-admin --help lists the commands");
    const std::size_t used = inline_value || args.size() < 2 ? 1 : 2;
    taken.insert(taken.end(), args.begin(), args.begin() + used);
    args = args.subspan(used);
  }
  return taken;
}

// The command named by the leading one or two words of `args`; sets `words` to how many.
const Command* find_command(std::span<const std::string> args, std::size_t& words) {
  for (const auto& c : commands()) {
    std::string name = c.name;
    auto space = name.find(' ');
    words = space == std::string::npos ? 1 : 2;
    if (args.size() < words) continue;
    std::string given = words == 1 ? args[0] : args[0] + " " + args[1];
    if (given == name) return &c;
  }
  return nullptr;
}

// Database errors can span lines; the tool promises one line.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

}  // namespace

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  try {
    if (args.size() == 1 && args[0] == "--version") {
      out << build::describe("storeapi-admin") << '\n';
      return 0;
    }
    std::vector<std::string> global = leading_global_flags(args);
    if (!args.empty() && asks_for_help(args[0])) {
      out << overview_help(help_entries());
      return 0;
    }
    std::size_t words = 0;
    const Command* command = find_command(args, words);
    if (!command && std::any_of(args.begin(), args.end(), asks_for_help)) {  // `storeapi-admin store --help`
      out << overview_help(help_entries());
      return 0;
    }
    if (!command) {
      if (args.empty()) throw UsageError("no command given; storeapi-admin --help lists them");
      std::string given = "'" + args[0] + (args.size() > 1 ? " " + args[1] : "") + "'";
      throw UsageError("unknown command " + given + "; storeapi-admin --help lists them");
    }
    std::span<const std::string> rest = args.subspan(words);
    if (std::any_of(rest.begin(), rest.end(), asks_for_help)) {
      out << command_help({command->name, command->summary, &command->flags});
      return 0;
    }
    FlagSpec spec = command->flags;
    for (std::string_view flag : kGlobalFlags) spec.optional.emplace_back(flag);
    global.insert(global.end(), rest.begin(), rest.end());
    Flags flags(global, spec);
    webhook_destinations();  // a malformed setting stops every command, as it stops the dispatcher
    auto conn = connect(database_url(flags.find("database-url")));
    std::optional<ServerConfirmations> confirmations;
    if (command->waits_for_servers) confirmations.emplace(*conn);
    JsonWriter json;
    command->handler(json, *conn, flags);
    // The change is committed; a server that stays silent applies it within its cache TTL.
    if (std::size_t late = confirmations ? confirmations->wait() : 0)
      err << "storeapi-admin: warning: " << late
          << " server confirmation(s) missing after 2 s; the change reaches those servers within 60 s\n";
    out << json.str() << '\n';
    return 0;
  } catch (const UsageError& e) {
    err << "storeapi-admin: " << one_line(e.what()) << '\n';
    return 2;
  } catch (const std::exception& e) {
    err << "storeapi-admin: " << one_line(e.what()) << '\n';
    return 1;
  }
}

}  // namespace storeapi::admin
