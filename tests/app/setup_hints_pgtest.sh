#!/usr/bin/env bash
# The server's start-up hints (db/start_check.hpp), one line each naming what to run:
# against a database nobody migrated ("run storeapi-admin migrate"), and as a role that
# may not read the keys (grant it the runtime role's rights). Seen failing: the server
# started without a word and answered every request 503/500 with `relation "api_keys"
# does not exist` or `permission denied` in its log, for ever.
#   tests/app/setup_hints_pgtest.sh BUILD_DIR      (STOREAPI_TEST_DATABASE_URL from tools/test)
set -euo pipefail
build=$(cd "$1" && pwd)
: "${STOREAPI_TEST_DATABASE_URL:?set by tools/test}"
work=$(mktemp -d)
name=hints_$$
with_path() { python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); user = sys.argv[3] or p.username
print(u.urlunsplit((p.scheme, f"{user}@{p.hostname}:{p.port}", "/" + sys.argv[2], p.query, "")))' "$STOREAPI_TEST_DATABASE_URL" "$1" "${2:-}"; }
admin_sql() { psql "$STOREAPI_TEST_DATABASE_URL" -Atqc "$1" >/dev/null; }
server=""
cleanup() {
  set +e
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null && wait "$server" 2>/dev/null
  admin_sql "drop database if exists $name with (force)"
  admin_sql "drop role if exists $name"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "setup hints test: $*" >&2; tail -5 "$work/server.err" >&2 2>/dev/null; exit 1; }

# Starts the server on `url` and waits for a line of stderr holding `expected`.
expect_hint() {
  local url=$1 expected=$2
  STOREAPI_DATABASE_URL=$url STOREAPI_LISTEN=127.0.0.1:0 STOREAPI_METRICS_LISTEN=off STOREAPI_THREADS=1 \
    STOREAPI_ACCESS_LOG=off "$build/storeapi" >/dev/null 2>"$work/server.err" &
  server=$!
  for _ in $(seq 300); do
    grep -qF "storeapi: hint: $expected" "$work/server.err" && break
    kill -0 "$server" 2>/dev/null || fail "the server stopped"
    sleep 0.1
  done
  grep -qF "storeapi: hint: $expected" "$work/server.err" || fail "no hint '$expected'"
  [[ $(grep -c 'storeapi: hint:' "$work/server.err") == 1 ]] || fail "more than one hint"
  kill -KILL "$server"; wait "$server" 2>/dev/null || true; server=""
}

admin_sql "create database $name"
expect_hint "$(with_path "$name")" "the database has no schema yet (requests fail until it has): run storeapi-admin migrate"
"$build/storeapi-admin" --database-url "$(with_path "$name")" migrate >/dev/null
admin_sql "create role $name login"
expect_hint "$(with_path "$name" "$name")" "role $name may not read api_keys or use schema api"
echo "setup hints test: an unmigrated database and a role without rights each give their one-line hint"
