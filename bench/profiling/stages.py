#!/usr/bin/env python3
"""Stage percentiles of one load step from two scrapes of the server's /metrics (before
and after the step, with STOREAPI_STAGE_TIMING=on): the difference of the cumulative
storeapi_request_stage_seconds buckets, so only the step's requests count. Percentiles
interpolate linearly within the bucket that holds them, as Prometheus's
histogram_quantile does.
  stages.py BEFORE.prom AFTER.prom   prints "stage count p50_us p99_us p99.9_us" lines
"""
import math
import re
import sys

FAMILY = "storeapi_request_stage_seconds"
BUCKET = re.compile(r'^' + FAMILY + r'_bucket\{(?P<labels>[^}]*)\} (?P<value>\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{stage: [(le, cumulative count), ...]} ascending by le (le of +Inf is math.inf)."""
    out = {}
    for line in text.splitlines():
        m = BUCKET.match(line)
        if not m:
            continue
        labels = dict(LABEL.findall(m["labels"]))
        out.setdefault(labels["stage"], []).append((float(labels["le"]), float(m["value"])))
    return {stage: sorted(buckets) for stage, buckets in out.items()}


def difference(before, after):
    """Cumulative buckets of `after` minus those of `before` (same bounds; a stage or
    bound missing before counts as 0)."""
    earlier = dict(before)
    return [(le, count - earlier.get(le, 0)) for le, count in after]


def percentile(buckets, fraction):
    """histogram_quantile over cumulative buckets: the bucket whose count reaches the
    rank, linearly between its lower and upper bound (0 below the first bucket); a rank
    in the +Inf bucket gives the highest finite bound. None when nothing was counted."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = fraction * buckets[-1][1]
    lower, below = 0.0, 0.0
    for le, cumulative in buckets:
        if cumulative >= rank:
            if math.isinf(le):
                return lower
            if cumulative == below:
                return le
            return lower + (le - lower) * (rank - below) / (cumulative - below)
        lower, below = le, cumulative
    return lower


def main(before_path, after_path):
    with open(before_path) as f:
        before = parse(f.read())
    with open(after_path) as f:
        after = parse(f.read())
    for stage, buckets in after.items():
        step = difference(before.get(stage, []), buckets)
        count = step[-1][1] if step else 0
        if count <= 0:
            print(f"{stage} 0 - - -")
            continue
        p = [percentile(step, f) * 1e6 for f in (0.50, 0.99, 0.999)]
        print(f"{stage} {count:.0f} {p[0]:.1f} {p[1]:.1f} {p[2]:.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
