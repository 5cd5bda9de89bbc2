#!/usr/bin/env bash
# tools/check-failure-forms against a copy of the request path's layers: it passes them as
# they are and fails each form docs/ARCHITECTURE.md §8 does not name when one is added —
# an optional error (in the json layer too), a task<bool>, a coroutine answering a
# pointer, an endpoint's helper answering with a bool — but not in a comment, nor a
# synchronous lookup's pointer. (The meson test `failure-forms` runs it on the real src/.)
set -euo pipefail
root=$1
check=$root/tools/check-failure-forms
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree/src"
cp -r "$root/src/api" "$root/src/http" "$root/src/auth" "$root/src/json" "$tree/src/"
"$check" "$tree/src" || { echo "FAIL: the tree as it is was refused"; exit 1; }

# refused FILE FORM LINE: the check fails on LINE written to FILE, reporting FORM there.
refused() {
  echo "$3" > "$tree/src/$1"
  if "$check" "$tree/src" 2> "$tree/out"; then echo "FAIL: passed: $3"; exit 1; fi
  grep -q "$1:1: $2" "$tree/out" || { echo "FAIL: unexpected report for $3:"; cat "$tree/out"; exit 1; }
  rm "$tree/src/$1"
}
# passed FILE LINE: the check passes LINE written to FILE.
passed() {
  echo "$2" > "$tree/src/$1"
  "$check" "$tree/src" || { echo "FAIL: refused: $2"; exit 1; }
  rm "$tree/src/$1"
}

refused api/new_check.hpp 'optional error' 'std::optional<QueryError> parse(int);'
refused json/new_check.hpp 'optional error' 'std::optional<BodyError> parse(std::string_view body);'
refused api/new_check.hpp 'task<bool>' 'runtime::task<bool> send(); // ok'
refused api/new_check.hpp 'task<pointer>' 'runtime::task<Pod*> find(std::string name);'
refused api/new_check.cpp 'answering bool' 'bool refuse_query_params(Context& ctx) {'
refused api/new_check.hpp 'answering bool' 'bool database_answered(const api::Context& ctx, db::Outcome outcome);'
passed api/new_check.hpp '// std::optional<QueryError> in a comment'
passed api/new_check.hpp 'Pod* known(std::string_view name) noexcept;'
passed api/new_check.hpp 'bool may_have_standbys(std::string_view name);'

echo "ok"
