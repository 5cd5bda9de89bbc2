#!/usr/bin/env bash
# The README's "Install" lines, run as written in a staged root: each line is taken from
# the README block marked `<!-- example: install` and run by bash, with these stand-ins
# (shell functions) so that nothing outside the stage is touched:
#   - the build directory lives in this test's work directory; `ninja -C DIR` copies the
#     suite's own binaries into DIR instead of compiling a second release build (minutes);
#   - `meson install` gets --destdir STAGE; `systemd-sysusers` / `systemd-tmpfiles` get
#     --root=STAGE; `install` writes under STAGE, naming STAGE's storeapi group;
#   - the lines run as root, as the README says (the test runs as root); `editor` (a
#     person) and `systemctl` (systemd as PID 1) are shown and skipped.
# Then: /etc/storeapi is root:storeapi 0750 and storeapi.env 0640, so the units can read
# it and nobody else; every path the units name (ExecStart, EnvironmentFile,
# Documentation) was installed; the units are Type=notify, run as storeapi, allow
# io_uring; `systemd-analyze verify` accepts them. Without the tmpfiles.d entry the
# `install` line fails (no /etc/storeapi); with a stale prefix the paths disagree.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
suite_build=$(cd "$1" && pwd)
source_root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "install test: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "install test: skipped, needs root (chown in the staged root)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
mkdir -p "$stage/etc"  # a system's root has /etc (sysusers takes its passwd lock there)

steps=$(awk '/^<!-- example: install/ { on = 1; next } on && /^```sh/ { inside = 1; next }
             inside && /^```/ { exit } inside { print }' "$source_root/README.md")
[[ -n $steps ]] || fail "no install block in README.md"

meson() {
  case $1 in
    # The source directory is the current one: the README's lines run in a checkout.
    setup) (cd "$source_root" && command meson setup "$work/$2" "${@:3}") >/dev/null ;;
    install) command meson "$@" --destdir "$stage" --no-rebuild --quiet ;;
    *) command meson "$@" ;;
  esac
}
# Puts the suite's build outputs where DIR's build would have made them (same sources).
ninja() {
  local dir file
  dir=$(cd "$2" && pwd)
  command meson introspect "$dir" --installed |
    python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)))' |
    while read -r file; do
      [[ $file == "$dir"/* && ! -e $file ]] || continue
      [[ -e $suite_build/${file#"$dir"/} ]] || fail "the suite's build has no ${file#"$dir"/}"
      cp "$suite_build/${file#"$dir"/}" "$file"
    done
}
systemd-sysusers() { command systemd-sysusers --root="$stage" "$@" >/dev/null; }
systemd-tmpfiles() { command systemd-tmpfiles --root="$stage" "$@"; }
install() {
  local args=() arg
  while [[ $# -gt 0 ]]; do
    arg=$1; shift
    case $arg in
      -g) args+=(-g "$(awk -F: -v g="$1" '$1 == g { print $3 }' "$stage/etc/group")"); shift ;;
      /*) args+=("$stage$arg") ;;
      *) args+=("$arg") ;;
    esac
  done
  command install "${args[@]}"
}
editor() { echo "install test: skipped (a person edits): editor $*"; }
systemctl() { echo "install test: skipped (needs systemd as PID 1): systemctl $*"; }

cd "$work"
while IFS= read -r line; do
  line=${line%%   #*}  # the README's comments
  [[ -n ${line// } ]] || continue
  eval "$line" || fail "this README line failed: $line"
done <<<"$steps"

prefix=$(command meson introspect "$work/build-release" --buildoptions |
         python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
[[ $prefix == /usr ]] || fail "the README's build has prefix $prefix, not /usr"
gid=$(awk -F: '$1 == "storeapi" { print $3 }' "$stage/etc/group")
[[ -n $gid ]] || fail "systemd-sysusers made no storeapi group"
[[ $(stat -c '%a %u %g' "$stage/etc/storeapi") == "750 0 $gid" ]] ||
  fail "/etc/storeapi is $(stat -c '%a %u:%g' "$stage/etc/storeapi"), expected 750 root:storeapi"
[[ $(stat -c '%a %u %g' "$stage/etc/storeapi/storeapi.env") == "640 0 $gid" ]] ||
  fail "/etc/storeapi/storeapi.env is $(stat -c '%a %u:%g' "$stage/etc/storeapi/storeapi.env"), expected 640 root:storeapi"

root=$stage$prefix
for binary in storeapi storeapi-admin storeapi-dispatch; do
  [[ -x $root/bin/$binary ]] || fail "bin/$binary is not installed"
done
for migration in "$source_root"/sql/*.sql "$source_root"/sql/functions/*.sql; do
  relative=${migration#"$source_root"/sql/}
  [[ -f $root/share/storeapi/sql/$relative ]] || fail "migration $relative is not installed"
done
[[ -f $root/share/storeapi/openapi/storeapi.yaml ]] || fail "the OpenAPI document is not installed"
grep -qx -- '-net.ipv4.tcp_migrate_req = 1' "$root/lib/sysctl.d/60-storeapi.conf" ||
  fail "the sysctl.d entry (tcp_migrate_req) is not installed"

units=$root/lib/systemd/system
for unit in storeapi.service storeapi-dispatch.service; do
  file=$units/$unit
  [[ -f $file ]] || fail "$unit is not installed"
  grep -q '^Type=notify$' "$file" || fail "$unit is not Type=notify"
  grep -q '^User=storeapi$' "$file" || fail "$unit does not run as the storeapi user"
  grep -qE '@[a-z_]+@' "$file" && fail "$unit has an unfilled @placeholder@"
  # Every file the unit names is where the install put it.
  for key in ExecStart EnvironmentFile Documentation; do
    path=$(sed -n "s|^$key=\\(file://\\)\\{0,1\\}\\(/[^ ]*\\).*|\\2|p" "$file")
    [[ -n $path ]] || fail "$unit has no $key"
    [[ -f $stage$path ]] || fail "$unit's $key names $path, which the install did not create"
  done
  grep -q '^SystemCallFilter=io_uring_setup io_uring_enter io_uring_register$' "$file" ||
    fail "$unit does not allow io_uring"
done

# A pod's dispatcher (docs/DEPLOY.md, "Pods"): the dispatcher's unit, instantiated by pod,
# reading the pod's settings file after the common one and otherwise the same. (Seen
# failing with the pod's settings file left out of the template.)
template=$units/storeapi-dispatch@.service
[[ -f $template ]] || fail "storeapi-dispatch@.service is not installed"
[[ $(grep '^EnvironmentFile=' "$template") == "$(grep '^EnvironmentFile=' "$units/storeapi-dispatch.service")"$'\n'"EnvironmentFile=$(dirname "$(sed -n 's|^EnvironmentFile=||p' "$units/storeapi-dispatch.service")")/pod-%i.env" ]] ||
  fail "storeapi-dispatch@.service does not read the pod's settings file after storeapi.env"
diff <(grep -v '^#\|^EnvironmentFile=' "$units/storeapi-dispatch.service") <(grep -v '^#\|^EnvironmentFile=' "$template") >/dev/null ||
  fail "storeapi-dispatch@.service differs from storeapi-dispatch.service beyond its settings files"

# verify loads each unit as systemd would, with the stage as the root, so ExecStart must
# name a binary that is there; the system's own units (sysinit.target, ...) are copied
# in for the dependencies every service gets. Any warning fails (verify's exit code
# ignores some).
mkdir -p "$stage/usr/lib/systemd"
cp -r /usr/lib/systemd/system "$stage/usr/lib/systemd/"
output=$(systemd-analyze verify --root="$stage" "$units/storeapi.service" "$units/storeapi-dispatch.service" 2>&1) ||
  fail "systemd-analyze verify failed: $output"
[[ -z $output ]] || fail "systemd-analyze verify warned: $output"
# Backups (docs/DEPLOY.md, "Backups and recovery"): the scripts beside the binaries, the
# units per stanza, their placeholders filled, each timer's service there.
for script in storeapi-recover storeapi-backup-metrics; do
  [[ -x $root/bin/$script ]] || fail "bin/$script is not installed"
done
for kind in full diff metrics; do
  for suffix in service timer; do
    [[ -f $units/storeapi-backup-$kind@.$suffix ]] || fail "storeapi-backup-$kind@.$suffix is not installed"
  done
  grep -qE '@[a-z_]+@' "$units/storeapi-backup-$kind@.service" && fail "storeapi-backup-$kind@.service has an unfilled @placeholder@"
done
grep -q "^ExecStart=$prefix/bin/storeapi-backup-metrics " "$units/storeapi-backup-metrics@.service" ||
  fail "storeapi-backup-metrics@.service does not run the installed script"
[[ -f $root/share/doc/storeapi/pgbackrest/pgbackrest.conf ]] || fail "pgbackrest.conf is not installed"
echo "install test: the README's steps installed under $prefix, /etc/storeapi and its settings file as the units expect"
