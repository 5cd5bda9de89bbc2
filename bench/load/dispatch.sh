#!/usr/bin/env bash
# storeapi-dispatch benchmark (bench/RESULTS.md "Dispatcher"): builds, starts a private
# PostgreSQL cluster under .dev/bench, creates a fresh database, migrates it, then runs
# build/bench/dispatch-bench, which drives a local receiver and the real dispatcher.
#   bench/load/dispatch.sh [--events 20000] [--rate 200] [--seconds 30] [--concurrency 64]
# STOREAPI_BENCH_DEV_DIR puts the cluster elsewhere (e.g. /dev/shm/storeapi-bench, on a
# machine whose disk is busy with other work; commits then cost no disk flush).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

tools/deps
build=${STOREAPI_BENCH_BUILD_DIR:-build}
[[ -f $build/build.ninja ]] || meson setup "$build" --buildtype=release -Dwerror=true >/dev/null
ninja -C "$build" -j "${STOREAPI_BUILD_JOBS:-2}" storeapi-dispatch storeapi-admin bench/dispatch-bench >/dev/null

export STOREAPI_DEV_DIR=${STOREAPI_BENCH_DEV_DIR:-$root/.dev/bench}
trap 'tools/dev-db stop >/dev/null' EXIT
tools/dev-db start >/dev/null
PGOPTIONS='-c client_min_messages=warning' tools/dev-db psql -qc 'drop database if exists dispatch_bench with (force)' -c 'create database dispatch_bench' >/dev/null
cluster=$(tools/dev-db url)
export STOREAPI_DATABASE_URL=${cluster%/*}/dispatch_bench
export STOREAPI_BUILD_DIR=$root/$build
"$build/storeapi-admin" migrate >/dev/null

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%Y-%m-%dT%H:%MZ)"
echo "cluster: $STOREAPI_DEV_DIR; load average $(cut -d' ' -f1-3 /proc/loadavg); I/O pressure $(awk '/^some/ {print $2}' /proc/pressure/io 2>/dev/null)"
"$build/bench/dispatch-bench" "$@"
