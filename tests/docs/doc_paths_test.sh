#!/usr/bin/env bash
# tools/check-doc-paths on documents made up here: it passes paths that exist (from the
# top, from src/, a glob), fails one that does not and names it. (The meson test
# `doc-paths` runs it on the real documents.)
set -euo pipefail
root=$1
check=$root/tools/check-doc-paths
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree/src/api/routing" "$tree/docs"
touch "$tree/src/api/routing/router.cpp" "$tree/src/api/routing/router.hpp"
echo 'See `src/api/routing/router.cpp`, `api/routing/router.*` and `sql/NNN_name.sql`.' > "$tree/docs/A.md"
"$check" "$tree" docs/A.md || { echo "FAIL: existing paths were refused"; exit 1; }

echo 'Moved from `api/router.cpp`.' > "$tree/docs/B.md"
if "$check" "$tree" docs/B.md 2> "$tree/out"; then echo "FAIL: a missing path passed"; exit 1; fi
grep -q 'docs/B.md:1: api/router.cpp does not exist' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }

echo "ok"
