#!/usr/bin/env bash
# tools/check-layers against trees made up here, with the real table of
# docs/ARCHITECTURE.md: it passes a downward include, fails an upward one and a layer the
# table does not know; inside admin, whose folders have a table of their own, the same for
# its folders, and a file outside them. (The meson test `layers` runs it on the real src/.)
set -euo pipefail
root=$1
check=$root/tools/check-layers
table=$root/docs/ARCHITECTURE.md
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree/src/http" "$tree/src/api" "$tree/src/runtime"
echo '#include "runtime/reactor.hpp"' > "$tree/src/http/server.hpp"
echo '#include "http/server.hpp"' > "$tree/src/api/application.hpp"
"$check" "$tree/src" "$table" || { echo "FAIL: downward includes were refused"; exit 1; }

echo '#include "api/routing/router.hpp"' > "$tree/src/http/response.hpp"
if "$check" "$tree/src" "$table" 2> "$tree/out"; then echo "FAIL: http including api passed"; exit 1; fi
grep -q 'http includes api/' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }
rm "$tree/src/http/response.hpp"

mkdir -p "$tree/src/newlayer"
if "$check" "$tree/src" "$table" 2> "$tree/out"; then echo "FAIL: a layer missing from the table passed"; exit 1; fi
grep -q 'src/newlayer/' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }

rmdir "$tree/src/newlayer"
mkdir -p "$tree/src/admin/move" "$tree/src/admin/stores" "$tree/src/admin/cli"
echo '#include "admin/stores/stores.hpp"' > "$tree/src/admin/move/store_move.cpp"
echo '#include "admin/move/store_move.hpp"' > "$tree/src/admin/cli/commands.cpp"
"$check" "$tree/src" "$table" || { echo "FAIL: downward admin folder includes were refused"; exit 1; }

echo '#include "admin/move/store_move.hpp"' > "$tree/src/admin/stores/stores.cpp"
if "$check" "$tree/src" "$table" 2> "$tree/out"; then echo "FAIL: admin/stores including admin/move passed"; exit 1; fi
grep -q 'admin/stores includes admin/move/' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }
rm "$tree/src/admin/stores/stores.cpp"

mkdir -p "$tree/src/admin/misc"
if "$check" "$tree/src" "$table" 2> "$tree/out"; then echo "FAIL: an admin folder missing from the table passed"; exit 1; fi
grep -q 'src/admin/misc/' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }
rmdir "$tree/src/admin/misc"

echo '#include "admin/move/store_move.hpp"' > "$tree/src/admin/loose.cpp"
if "$check" "$tree/src" "$table" 2> "$tree/out"; then echo "FAIL: a file outside admin's folders passed"; exit 1; fi
grep -q 'loose.cpp: outside the folders of admin' "$tree/out" || { echo "FAIL: unexpected report:"; cat "$tree/out"; exit 1; }

echo "ok"
