// Where storeapi-admin finds its database: STOREAPI_DATABASE_URL, libpq's own variables and
// files (a service file here), or --database-url, which must not carry a password (a
// command line is readable by every local user). Seen failing: without the password check
// in admin::database_url the refusals exit 1 (they try to connect); without the libpq
// fallback, the service-file run exits 2 ("no database").
#include "admin_fixture.hpp"
#include "support/scoped_env.hpp"

#include <libpq-fe.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace storeapi::testing {
namespace {

// The test database's connection parameters, by libpq's parser.
std::map<std::string, std::string> parameters(const std::string& url) {
  std::map<std::string, std::string> out;
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (!options) throw std::runtime_error(error ? error : "unparsable URL");
  for (PQconninfoOption* o = options; o->keyword; ++o)
    if (o->val && *o->val) out[o->keyword] = o->val;
  PQconninfoFree(options);
  return out;
}

using DatabaseUrl = AdminTest;

TEST_F(DatabaseUrl, APasswordOnTheCommandLineIsRefusedAndNotRepeated) {
  for (const std::string url : {"postgresql://storeapi:hunter2secret@127.0.0.1:1/storeapi",
                                "postgresql://storeapi@127.0.0.1:1/storeapi?password=hunter2secret",
                                "host=127.0.0.1 port=1 password=hunter2secret"}) {
    CliResult r = run_admin({"migrate", "--database-url", url}, std::nullopt);
    EXPECT_EQ(r.exit_code, 2) << url << ": " << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("--database-url must not carry a password"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("hunter2secret"), std::string::npos) << r.err;
  }
}

// README: "--database-url URL on any command", which operators write before the command
// as with git or kubectl. Seen failing: "unknown command '--database-url ...'" (exit 2).
TEST_F(DatabaseUrl, TheFlagMayComeBeforeTheCommand) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--database-url", db().url(), "pod", "list"},
        std::vector<std::string>{"--database-url=" + db().url(), "pod", "list"}}) {
    CliResult r = run_admin(args, std::nullopt);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"object\":\"list\""), std::string::npos) << r.out;
  }
  CliResult twice = run_admin({"--database-url", db().url(), "pod", "list", "--database-url", db().url()}, std::nullopt);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("given twice"), std::string::npos) << twice.err;
  CliResult other = run_admin({"--store", "x", "pod", "list"}, std::nullopt);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("only --database-url goes there"), std::string::npos) << other.err;
}

TEST_F(DatabaseUrl, LibpqsServiceFileNamesTheDatabase) {
  auto p = parameters(db().url());
  std::filesystem::path file = std::filesystem::temp_directory_path() / ("storeapi-pg-service-" + p["dbname"]);
  {
    std::ofstream out(file);
    out << "[storeapi_test]\n";
    for (const char* key : {"host", "port", "dbname", "user"})
      if (p.count(key)) out << key << "=" << p[key] << "\n";
  }
  ScopedEnv env(std::map<std::string, std::string>{{"PGSERVICEFILE", file.string()}, {"PGSERVICE", "storeapi_test"}});
  CliResult r = run_admin({"migrate"}, std::nullopt);
  std::filesystem::remove(file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"applied\":[]"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace storeapi::testing
