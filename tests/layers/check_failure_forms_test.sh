#!/usr/bin/env bash
# tools/check-failure-forms against a copy of the request path's layers: it passes them as
# they are, fails an optional error or a task<bool> added anywhere else, and fails a place
# of its list of those left once it is converted (so the list only shrinks). (The meson
# test `failure-forms` runs it on the real src/.)
set -euo pipefail
root=$1
check=$root/tools/check-failure-forms
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree/src"
cp -r "$root/src/api" "$root/src/http" "$root/src/auth" "$tree/src/"
"$check" "$tree/src" || { echo "FAIL: the tree as it is was refused"; exit 1; }

echo 'std::optional<BodyError> parse(int);' > "$tree/src/api/new_check.hpp"
if "$check" "$tree/src" 2> "$tree/out"; then echo "FAIL: an optional error passed"; exit 1; fi
grep -q 'api/new_check.hpp:1: optional error' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }
echo 'runtime::task<bool> send(); // ok' > "$tree/src/api/new_check.hpp"
if "$check" "$tree/src" 2> "$tree/out"; then echo "FAIL: a task<bool> passed"; exit 1; fi
grep -q 'api/new_check.hpp:1: task<bool>' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }
echo '// std::optional<QueryError> in a comment' > "$tree/src/api/new_check.hpp"
"$check" "$tree/src" || { echo "FAIL: a comment was refused"; exit 1; }
rm "$tree/src/api/new_check.hpp"

sed -i 's/task<bool>/task<int>/g' "$tree/src/auth/fleet_batch.hpp"
if "$check" "$tree/src" 2> "$tree/out"; then echo "FAIL: a converted place still listed passed"; exit 1; fi
grep -q 'auth/fleet_batch.hpp has no task<bool> any more' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }

echo "ok"
