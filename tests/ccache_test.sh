#!/usr/bin/env bash
# Builds go through ccache, as CONTRIBUTING promises: tools/deps installs it, the build
# directory tools/test made for this run compiles through it, and tools/setup-build sets
# up again a directory configured before ccache was installed (shown on a one-file
# project set up with a PATH that has no ccache). Seen failing: ccache was neither
# installed nor used, and every build directory compiled cold (~20 minutes each).
#   tests/ccache_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "ccache test: $*" >&2; exit 1; }
grep -qE '^\s*g\+\+ .*\bccache\b' "$root/tools/deps" || fail "tools/deps does not install ccache"
command -v ccache >/dev/null || fail "ccache is not installed (tools/deps installs it)"
grep -q '^ command = ccache c++ ' "$build/build.ninja" || fail "$build does not compile through ccache"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project" "$work/bin"
printf "project('p', 'c')\nexecutable('p', 'p.c')\n" >"$work/project/meson.build"
echo 'int main(void) { return 0; }' >"$work/project/p.c"
for tool in meson ninja python3 cc gcc c++ g++ ld as ar pkg-config; do
  [[ -n $(command -v "$tool") ]] && ln -s "$(command -v "$tool")" "$work/bin/$tool"
done
(cd "$work/project" && PATH=$work/bin meson setup "$work/old" >/dev/null) || fail "the bare setup failed"
! grep -q '^ command = ccache ' "$work/old/build.ninja" || fail "the PATH without ccache still found it"
(cd "$work/project" && "$root/tools/setup-build" "$work/old" 2>"$work/err") || fail "tools/setup-build failed: $(cat "$work/err")"
grep -q '^ command = ccache cc ' "$work/old/build.ninja" || fail "tools/setup-build left the directory without ccache"
grep -q 'configured without ccache' "$work/err" || fail "tools/setup-build did not say why it set up again"
echo "ccache test: tools/deps installs ccache, the suite's build and a re-set-up directory compile through it"
