#!/usr/bin/env bash
# CI's skip allow-list: tools/skipped-tests names what a meson run skipped (GoogleTest cases
# by Suite.Case, scripts by their meson name), .ci/check-skips accepts only the skips
# .ci/skips lists for the phase, and every entry of .ci/skips names a test that exists
# (a renamed case would otherwise leave its entry allowing nothing, and its skip failing).
#   ci_skips_test.sh SOURCE_ROOT
set -euo pipefail
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A meson JSON log (tests named as meson names them, "project:suite / name"): a gtest
# binary with two skipped cases, a script that exited 77, a
# passing test whose output mentions SKIPPED (not a skip), a failed one.
cat > "$work/testlog.json" <<'JSON'
{"name": "unit-json", "result": "SKIP", "stdout": "[ RUN      ] Body.AllocatesNothingOnceWarm\n[  SKIPPED ] Body.AllocatesNothingOnceWarm (0 ms)\n[  SKIPPED ] 2 tests, listed below:\n[  SKIPPED ] Body.AllocatesNothingOnceWarm\n[  SKIPPED ] JsonWriter.AllocatesNothingOnceTheBufferIsWarm\n"}
{"name": "storeapi:ha+multiprocess / ha-patroni", "result": "SKIP", "stdout": "patroni failover test: skipped, patroni is not installed\n"}
{"name": "unit-http", "result": "OK", "stdout": "[  SKIPPED ] Not.Really\n"}
{"name": "unit-api", "result": "FAIL", "stdout": ""}
JSON
names=$("$root/tools/skipped-tests" "$work/testlog.json" | paste -sd ' ' -)
[[ $names == "Body.AllocatesNothingOnceWarm JsonWriter.AllocatesNothingOnceTheBufferIsWarm ha-patroni" ]] ||
  fail "skipped-tests named: $names"
[[ -z $("$root/tools/skipped-tests" "$work/missing.json") ]] || fail "skipped-tests named something without a log"

# check LIST PHASE EXPECTED_STATUS [--unprivileged] SKIPPED...: check-skips's verdict on a
# log that names those skips.
check() {
  local phase=$1 expected=$2
  shift 2
  local flags=()
  [[ ${1:-} != --unprivileged ]] || { flags=(--unprivileged); shift; }
  printf 'ninja: no work to do\n' > "$work/phase.log"
  for name in "$@"; do printf 'tools/test: skipped: %s\n' "$name" >> "$work/phase.log"; done
  local status=0
  "$root/.ci/check-skips" "${flags[@]}" "$phase" "$work/phase.log" > "$work/out" || status=$?
  [[ $status -eq $expected ]] || fail "$phase ${flags[*]} $*: exit $status, expected $expected: $(cat "$work/out")"
}

# The ASan phase's expected skips pass, each named with its reason.
check asan 0 Body.AllocatesNothingOnceWarm Task.DeepRecursionDoesNotGrowTheStack unit-syscalls
grep -q 'expected skip: unit-syscalls (checks the plain binaries only)' "$work/out" || fail "the reason is not shown"
# The same skips in the plain phase fail it; so does nothing at all skipped in ASan's.
check plain 1 Body.AllocatesNothingOnceWarm
check asan 0
check plain 0
# A skipped HA, fleet or takeover test fails any phase, also among expected ones.
check plain 1 ha-patroni
check asan 1 Body.AllocatesNothingOnceWarm ha-patroni
check chaos 1 FleetStandby.SomeCase
check plain 1 Restart.ANewProcessOnTheSamePortTakesOverWithNoRefusedConnection
grep -q 'UNEXPECTED skip: Restart.ANewProcessOnTheSamePortTakesOverWithNoRefusedConnection' "$work/out" ||
  fail "the unexpected skip is not named"
# ... unless CI is not root: then the takeover's skip is allowed, an HA one still not.
check plain 0 --unprivileged Restart.ANewProcessOnTheSamePortTakesOverWithNoRefusedConnection install
check plain 1 --unprivileged install ha-patroni
# A name is matched whole, not as a prefix or a pattern.
check asan 1 Body.AllocatesNothing
check asan 1 'Body.AllocatesNothingOnceWar.'

# Every entry names a test that exists: a GoogleTest case in tests/, or a meson test.
while read -r phase name _; do
  [[ -z $phase || $phase == \#* ]] && continue
  case $phase in plain | asan | chaos | unprivileged) ;; *) fail ".ci/skips: unknown phase $phase" ;; esac
  if [[ $name == *.* ]]; then
    grep -rqE "TEST(_F|_P)?\(${name%%.*}, ${name#*.}\)" "$root/tests" || fail ".ci/skips: no test case $name"
  else
    grep -qE "^test\('$name'" "$root/tests/meson.build" || fail ".ci/skips: no meson test $name"
  fi
done < "$root/.ci/skips"

(( failures == 0 )) || exit 1
echo "ci skips: all checks passed"
