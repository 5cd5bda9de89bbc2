#!/usr/bin/env bash
# The settings file as docs/DEPLOY.md and dist/storeapi.env.example write it, read by
# systemd's EnvironmentFile= rules (systemd.exec(5): `NAME=value` lines; lines starting
# with # or ; are comments; an unquoted value runs to the end of the line, trailing blanks
# trimmed, so a '#' after a value is part of it; a quoted value loses its quotes): every
# settings line of DEPLOY's shell blocks, and every line of the example with its leading
# '#' removed (what an operator does to use one), must give a value that holds no comment
# (the server refuses " #" in a value, tests/app/config_test.cpp) and name a setting the
# README documents. Seen failing: DEPLOY's own "At least:" block wrote
# `STOREAPI_LISTEN=127.0.0.1:8080 # behind the proxy only`, which stopped the server (exit 2).
#   tests/settings_file_test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python3 - "$root" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
readme = (root / "README.md").read_text()
documented = set(re.findall(r"`(STOREAPI_[A-Z_]+)`", readme))

def systemd_value(raw):
    """The value systemd's EnvironmentFile gives for the text after '='."""
    raw = raw.lstrip()
    if raw[:1] in ("'", '"'):
        quote, out, i = raw[0], "", 1
        while i < len(raw) and raw[i] != quote:
            if raw[i] == "\\" and quote == '"' and i + 1 < len(raw):
                i += 1
            out += raw[i]
            i += 1
        return out
    return re.sub(r"\\(.)", r"\1", raw.rstrip())

lines = []
deploy = (root / "docs/DEPLOY.md").read_text()
for block in re.findall(r"^ *```sh\n(.*?)^ *```", deploy, re.M | re.S):
    lines += [("docs/DEPLOY.md", l.strip()) for l in block.splitlines() if re.match(r"\s*STOREAPI_[A-Z_]+=", l)]
example = (root / "dist/storeapi.env.example").read_text()
lines += [("dist/storeapi.env.example (uncommented)", l[1:]) for l in example.splitlines() if re.match(r"#STOREAPI_[A-Z_]+=", l)]
lines += [("dist/storeapi.env.example", l) for l in example.splitlines() if re.match(r"STOREAPI_[A-Z_]+=", l)]
problems = []
for where, line in lines:
    name, _, raw = line.partition("=")
    value = systemd_value(raw)
    if re.search(r"[ \t]#", value):
        problems.append(f"{where}: {name} gets the value {value!r}: a comment after a value is part of it")
    if name not in documented:
        problems.append(f"{where}: {name} is not a setting the README documents")
for p in problems:
    print(f"settings file test: {p}", file=sys.stderr)
if len(lines) < 10:
    problems.append(f"only {len(lines)} settings lines found")
if problems:
    sys.exit(1)
print(f"settings file test: {len(lines)} settings lines of DEPLOY and the example, each a clean value by systemd's rules")
PY
