#include "admin/cli/help.hpp"

#include <algorithm>
#include <stdexcept>

namespace storeapi::admin {
namespace {

struct FlagText {
  std::string_view flag;  // "name", or "command words:name" where a command means more
  std::string_view value;  // the value's placeholder
  std::string_view text;
};

// One line per flag; a flag that means something else for one command has its own row,
// looked up first.
constexpr FlagText kFlags[] = {
    {"database-url", "URL", "the directory's libpq URL, instead of STOREAPI_DATABASE_URL (no password: every user can read a command line)"},
    {"store", "STORE_ID", "the store's id"},
    {"event redeliver:store", "STORE_ID", "only if the event is this store's"},
    {"name", "NAME", "the name"},
    {"store create:name", "NAME", "the store's display name"},
    {"key create:name", "NAME", "what the key is for, shown by key list"},
    {"pod add:name", "NAME", "the pod's name (letters, digits, -)"},
    {"slug", "SLUG", "the store's unique short name"},
    {"currency", "CODE", "ISO 4217 currency, e.g. EUR"},
    {"plan", "PLAN", "free, pro or advanced"},
    {"owner-email", "EMAIL", "the owner's e-mail (also made a staff member with full access)"},
    {"locale", "LOCALE", "the store's locale (default en)"},
    {"url", "URL", "the URL"},
    {"store create:url", "URL", "the store's web site"},
    {"webhook add:url", "URL", "where the events are POSTed"},
    {"pod add:url", "URL", "libpq URL of the pod's primary, without password (PGPASSFILE holds it)"},
    {"pod", "POD", "the pod's name (default main)"},
    {"store create:pod", "POD", "the pod to place the store on (default main)"},
    {"rpm", "N", "requests per minute, or default (the plan's)"},
    {"to", "POD", "the pod to move the store to"},
    {"email", "EMAIL", "the staff member's e-mail"},
    {"access", "LEVELS", "per resource: orders:write,products:read (none when left out)"},
    {"key create:access", "ACCESS", "read, full or custom (then --scopes)"},
    {"scopes", "SCOPES", "with --access custom: e.g. orders:write,products:read"},
    {"expires", "WHEN", "never (default), 30d, 90d, 1y or an RFC 3339 time"},
    {"by", "EMAIL", "the staff member creating it (default the owner); grants only what they hold"},
    {"key", "KEY_ID", "the key's id"},
    {"variant", "VARIANT_ID", "the variant's id"},
    {"events", "TYPES", "only these event types, comma-separated (default every type)"},
    {"webhook", "WEBHOOK_ID", "the endpoint's id"},
    {"event", "EVENT_ID", "the event's id (evt_... or a uuid)"},
    {"webhook deliveries:event", "EVENT_ID", "only this event's deliveries"},
    {"limit", "N", "deliveries per page, 1 to 1000 (default 50)"},
    {"starting-after", "DELIVERY_ID", "the page after this delivery (the last one shown)"},
    {"orders", "N", "orders to make (default 60)"},
    {"products", "N", "products to make (default 40)"},
    {"customers", "N", "customers to make (default 20)"},
    {"bookings", "N", "bookings to make (default 20)"},
    {"replica-urls", "URL,...", "libpq URLs of the pod's hot standbys, comma-separated"},
    {"lock-timeout-ms", "MS", "how long each statement may wait for a lock before the migration is retried (default 3000)"},
    {"attempts", "N", "tries per migration that ran out of lock time (default 10)"},
    {"mover-user", "ROLE", "the role the move signs in to both pods as (default STOREAPI_MOVER_USER); its password in a password file"},
    {"from", "URL", "libpq URL of a copy of the store's pod recovered to the time to restore (dist/pgbackrest/storeapi-recover)"},
    {"owner transfer:from", "ROLE", "the role that owns the schema objects now"},
    {"owner transfer:to", "ROLE", "the role to own them (storeapi_owner)"},
};

const FlagText& flag_text(std::string_view command, std::string_view flag) {
  const std::string own = std::string(command) + ":" + std::string(flag);
  for (const FlagText& f : kFlags)
    if (f.flag == own) return f;
  for (const FlagText& f : kFlags)
    if (f.flag == flag) return f;
  throw std::logic_error("storeapi-admin: flag --" + std::string(flag) + " of '" + std::string(command) +
                         "' has no help line");
}

std::string padded(std::string text, std::size_t width) {
  text.resize(std::max(text.size() + 2, width), ' ');
  return text;
}

}  // namespace

std::string overview_help(std::span<const CommandHelp> commands) {
  std::string text =
      "usage: storeapi-admin [--database-url URL] COMMAND [--FLAG VALUE ...]\n"
      "Each command prints one JSON object on stdout; errors are one line on stderr (exit 2: bad command line,\n"
      "1: it cannot be done). The database is STOREAPI_DATABASE_URL, libpq's PG* variables, or --database-url.\n\n"
      "commands:\n";
  for (const CommandHelp& c : commands) text += "  " + padded(std::string(c.name), 24) + std::string(c.summary) + "\n";
  return text + "\nstoreapi-admin COMMAND --help lists a command's flags.\n";
}

std::string command_help(const CommandHelp& command) {
  std::string usage = "usage: storeapi-admin " + std::string(command.name);
  std::string lines;
  auto add = [&](const std::string& flag, bool required) {
    const FlagText& f = flag_text(command.name, flag);
    const std::string form = "--" + flag + " " + std::string(f.value);
    usage += required ? " " + form : " [" + form + "]";
    lines += "  " + padded(form, 30) + (required ? "(required) " : "") + std::string(f.text) + "\n";
  };
  for (const std::string& flag : command.flags->required) add(flag, true);
  for (const std::string& flag : command.flags->optional) add(flag, false);
  for (std::string_view flag : kGlobalFlags) add(std::string(flag), false);
  return usage + "\n" + std::string(command.summary) + "\n\nflags:\n" + lines;
}

}  // namespace storeapi::admin
