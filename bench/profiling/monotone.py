#!/usr/bin/env python3
"""Whether bench/profile's latency curves rise with load, within their spread across rounds.

A latency curve against offered load (open loop) can only rise: more load, more queueing.
A step whose latency is below an earlier step's at a lower load, by more than the spread
of the repeated runs, says the measurement is wrong (the machine was busy with other work
during the earlier step), not the server. bench/profile runs every load ROUNDS times and
asks this script before it plots:

  monotone.py check CURVE.tsv     one warning line per curve that is not monotone (none: ok)
  monotone.py title CURVE.tsv     the same, short, for the plot's title ("" when ok)
  monotone.py medians CURVE.tsv SIDE   offered_rps p50 p99 p99.9 per load (median of the rounds)

CURVE.tsv is bench/profile's curve: side, load_pct, offered_rps, achieved_rps, p50_us,
p99_us, p99.9_us, max_us, unanswered; one row per side, load and round; the closed-loop
"saturation" rows are left out.
"""
import statistics
import sys

PERCENTILES = (("p50", 4), ("p99", 5), ("p99.9", 6))


def steps(lines):
    """{side: {load_pct: [row, ...]}} of the open-loop rows, rows as lists of fields."""
    out = {}
    for line in lines:
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 7 or fields[0] == "side" or fields[1] == "saturation":
            continue
        out.setdefault(fields[0], {}).setdefault(float(fields[1]), []).append(fields)
    return out


def violations(curve):
    """For one side's {load: rows}: (percentile, low load, its range, high load, its range)
    for every pair of loads where the higher load's worst round is faster than the lower
    load's best round: the curve falls by more than its spread."""
    found = []
    loads = sorted(curve)
    for name, column in PERCENTILES:
        ranges = {load: (min(float(r[column]) for r in curve[load]), max(float(r[column]) for r in curve[load]))
                  for load in loads}
        for i, low in enumerate(loads):
            for high in loads[i + 1:]:
                if ranges[high][1] < ranges[low][0]:
                    found.append((name, low, ranges[low], high, ranges[high]))
                    break  # one per starting load is enough to say so
    return found


def ms(us):
    return f"{us / 1000:.2f}"


def check(lines):
    warnings = []
    for side, curve in sorted(steps(lines).items()):
        rounds = min(len(rows) for rows in curve.values())
        for name, low, (low_min, low_max), high, (high_min, high_max) in violations(curve):
            warnings.append(
                f"WARNING: {side} {name} is not monotone within its spread over {rounds} round(s): "
                f"{ms(low_min)}-{ms(low_max)} ms at {low:g} % but {ms(high_min)}-{ms(high_max)} ms at {high:g} %: "
                f"either the machine was not quiet (re-run before trusting this curve) or the server is "
                f"faster busy than idle (a stage that shrinks with load in the stage tables)")
    return warnings


def title(lines):
    curves = sorted({f"{side} {v[0]}" for side, curve in steps(lines).items() for v in violations(curve)})
    return ("NOT MONOTONE (" + ", ".join(curves) + "): a busy machine, or faster busy than idle") if curves else ""


def medians(lines, side):
    rows = []
    for load, group in sorted(steps(lines).get(side, {}).items()):
        offered = statistics.median(float(r[2]) for r in group)
        values = [statistics.median(float(r[column]) for r in group) for _, column in PERCENTILES]
        rows.append(" ".join(f"{v:.0f}" for v in [offered] + values))
    return rows


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "title", "medians") or (argv[1] == "medians" and len(argv) < 4):
        sys.exit(__doc__)
    with open(argv[2]) as f:
        lines = f.readlines()
    if argv[1] == "check":
        for w in check(lines):
            print(w)
    elif argv[1] == "title":
        print(title(lines))
    else:
        for row in medians(lines, argv[3]):
            print(row)


if __name__ == "__main__":
    main(sys.argv)
