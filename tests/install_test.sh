#!/usr/bin/env bash
# `meson install` into a throwaway DESTDIR: the three binaries, the migrations, the
# OpenAPI document, the service user and the two systemd units land where they should,
# the units name the installed binaries, and `systemd-analyze verify` accepts them.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
         python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
root=$dest$prefix
fail() { echo "install test: $*" >&2; exit 1; }

for binary in storeapi storeapi-admin storeapi-dispatch; do
  [[ -x $root/bin/$binary ]] || fail "bin/$binary is not installed"
done
for migration in "$(dirname "$0")"/../sql/*.sql "$(dirname "$0")"/../sql/functions/*.sql; do
  relative=${migration#"$(dirname "$0")"/../sql/}
  [[ -f $root/share/storeapi/sql/$relative ]] || fail "migration $relative is not installed"
done
[[ -f $root/share/storeapi/openapi/storeapi.yaml ]] || fail "the OpenAPI document is not installed"
[[ -f $root/lib/sysusers.d/storeapi.conf ]] || fail "the sysusers.d entry is not installed"
grep -qx -- '-net.ipv4.tcp_migrate_req = 1' "$root/lib/sysctl.d/60-storeapi.conf" ||
  fail "the sysctl.d entry (tcp_migrate_req) is not installed"
[[ -f $root/share/doc/storeapi/storeapi.env.example ]] || fail "the example settings are not installed"

units=$root/lib/systemd/system
for unit in storeapi.service storeapi-dispatch.service; do
  file=$units/$unit
  [[ -f $file ]] || fail "$unit is not installed"
  grep -q '^Type=notify$' "$file" || fail "$unit is not Type=notify"
  grep -q "^ExecStart=$prefix/bin/${unit%.service}\$" "$file" || fail "$unit does not start $prefix/bin/${unit%.service}"
  grep -q '^User=storeapi$' "$file" || fail "$unit does not run as the storeapi user"
  grep -q "^EnvironmentFile=$prefix/etc/storeapi/storeapi.env\$" "$file" ||
    grep -q '^EnvironmentFile=/etc/storeapi/storeapi.env$' "$file" || fail "$unit has no EnvironmentFile"
  grep -qE '@[a-z_]+@' "$file" && fail "$unit has an unfilled @placeholder@"
done
grep -q '^SystemCallFilter=io_uring_setup io_uring_enter io_uring_register$' "$units/storeapi.service" ||
  fail "storeapi.service does not allow io_uring"

# verify loads each unit as systemd would, with the DESTDIR as the root, so ExecStart
# must name a binary that is there; the system's own units (sysinit.target, ...) are
# copied in for the dependencies every service gets. Any warning fails (verify's exit
# code ignores some).
mkdir -p "$dest/usr/lib/systemd"
cp -r /usr/lib/systemd/system "$dest/usr/lib/systemd/"
output=$(systemd-analyze verify --root="$dest" "$units/storeapi.service" "$units/storeapi-dispatch.service" 2>&1) ||
  fail "systemd-analyze verify failed: $output"
[[ -z $output ]] || fail "systemd-analyze verify warned: $output"
echo "install test: installed under $prefix and verified both units"
