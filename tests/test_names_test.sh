#!/usr/bin/env bash
# The tests' file names say which need PostgreSQL (docs/ARCHITECTURE.md §7): a
# `*_pgtest.*` needs a database (tools/test's cluster, or a cluster of its own), a
# `*_test.*` runs without one. A test needs one when it reads STOREAPI_TEST_DATABASE_URL
# or uses the harness that does (a server process, a test database or cluster, the
# fixtures built on them; a script: PostgreSQL's own pg_ctl, or a Patroni cluster); this fails on a file whose name says otherwise, naming it.
# Seen failing: `#include "support/server_process.hpp"` added to tests/http/query_test.cpp.
#   tests/test_names_test.sh TESTS_DIR
set -euo pipefail
cd "$1"
# The harness that needs the database: these headers, and the variable itself.
needs_database='STOREAPI_TEST_DATABASE_URL|#include "(support/(server_process|test_database|test_pod|throwaway_cluster|dispatcher_process|pgbouncer_process)|([a-z_/]*/)?([a-z_]+_fixture|seeded_server|read_world(_test)?|stock_writers|admin_cli))\.hpp"|tools/dev-db|pg_ctl|patroni_pair\.sh'
status=0
while IFS= read -r file; do
  echo "test-names: $file needs a database (it uses: $(grep -ohE "$needs_database" "$file" | head -1)): name it ${file/_test./_pgtest.}"
  status=1
done < <(grep -lE "$needs_database" $(find . -name '*_test.cpp' -o -name '*_test.sh' | grep -v '^./test_names_test.sh$') | sed 's#^\./##')
while IFS= read -r file; do
  echo "test-names: $file uses no database: name it ${file/_pgtest./_test.}"
  status=1
done < <(grep -LE "$needs_database" $(find . -name '*_pgtest.cpp' -o -name '*_pgtest.sh') | sed 's#^\./##')
exit $status
