#!/usr/bin/env bash
# `storeapi-admin --help` and `storeapi-admin COMMAND --help`, which are written from the
# parser's own command table, against the README's list of admin commands (the block
# marked `<!-- example: admin`): the same commands, and every flag the README shows for a
# command is in that command's help. Every command's help must come out (a flag without a
# help line stops it). Without arguments the tool says where the list is (exit 2).
# Seen failing: before the help existed, `storeapi-admin` alone said "unknown command
# nothing" and `--help` was an unknown command.
#   tests/admin/help_test.sh BUILD_DIR
set -euo pipefail
admin=$(cd "$1" && pwd)/storeapi-admin
readme=$(cd "$(dirname "$0")/../.." && pwd)/README.md
fail() { echo "admin help test: $*" >&2; exit 1; }

overview=$("$admin" --help) || fail "--help exited $?"
grep -q '^usage: storeapi-admin ' <<<"$overview" || fail "--help has no usage line: $overview"
[[ $("$admin" store --help) == "$overview" ]] || fail "'store --help' is not the overview"
status=0
"$admin" >/dev/null 2>"${TMPDIR:-/tmp}/admin-help-$$.err" || status=$?
none=$(cat "${TMPDIR:-/tmp}/admin-help-$$.err"); rm -f "${TMPDIR:-/tmp}/admin-help-$$.err"
[[ $status == 2 && $none == *"storeapi-admin --help"* ]] || fail "no arguments: exit $status, '$none'"

python3 - "$admin" "$readme" "$overview" <<'PY'
import re, subprocess, sys
admin, readme, overview = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
problems = []
helped = [m.group(1) for m in re.finditer(r"^  (\S+(?: [a-z-]+)?)  +\S", overview.split("commands:\n", 1)[1], re.M)]
block = re.search(r"<!-- example: admin[ >].*?```sh\n(.*?)```", readme, re.S)
if not block:
    sys.exit("admin help test: README has no block marked <!-- example: admin")
# Each `$A ...` line with its continuation lines: its command words, then its flags.
documented = {}
for command_line in re.findall(r"^\$A (.*)$", block.group(1).replace("\\\n", " "), re.M):
    words = command_line.split()
    name = []
    for w in words:
        if w.startswith(("-", "#", "[")) or not re.fullmatch(r"[a-z-]+", w):
            break
        name.append(w)
    if not name:  # a program-wide flag (`$A --version`): no command, held by the versions test
        continue
    text = command_line.split("#", 1)[0]
    documented.setdefault(" ".join(name), set()).update(re.findall(r"--([a-z-]+)", text))
if set(helped) != set(documented):
    problems.append(f"commands in --help but not in README: {sorted(set(helped) - set(documented))}; "
                    f"in README but not in --help: {sorted(set(documented) - set(helped))}")
for name in helped:
    run = subprocess.run([admin, *name.split(), "--help"], capture_output=True, text=True)
    if run.returncode != 0 or not run.stdout.startswith(f"usage: storeapi-admin {name}"):
        problems.append(f"'{name} --help': exit {run.returncode}, {run.stdout[:100]!r} {run.stderr.strip()!r}")
        continue
    flags = set(re.findall(r"^  --([a-z-]+) ", run.stdout, re.M))
    if "database-url" not in flags:
        problems.append(f"'{name} --help' does not list --database-url")
    for flag in sorted(documented.get(name, set()) - flags):
        problems.append(f"README shows {name} --{flag}, which '{name} --help' does not list")
for p in problems:
    print(f"admin help test: {p}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"admin help test: {len(helped)} commands, the same in --help and README, each with its flags")
PY
