#!/usr/bin/env bash
# The three programs print "PROGRAM VERSION (commit COMMIT)" for --version and exit 0,
# VERSION being meson.build's project(version:) (given here by meson).
set -euo pipefail
build=$1 version=$2
for program in storeapi storeapi-admin storeapi-dispatch; do
  out=$(env -i "$build/$program" --version)
  [[ $out =~ ^$program\ ${version//./\\.}\ \(commit\ ([0-9a-f]+|unknown)\)$ ]] ||
    { echo "FAIL: $program --version printed '$out', expected '$program $version (commit ...)'"; exit 1; }
done
echo ok
