#!/usr/bin/env python3
"""Stage percentiles of one load step from two snapshots of the server's GET /debug/stages
(before and after the step): the difference of the cumulative histograms, so only the
step's requests count.
  stages.py BEFORE.json AFTER.json   prints "stage count p50_us p99_us p99.9_us" lines
"""
import json
import sys


def percentile(buckets, fraction):
    """The highest value of the bucket holding the given fraction of the counts."""
    total = sum(count for _, count in buckets)
    target = max(1, -(-total * fraction // 1))
    seen = 0
    for highest, count in buckets:
        seen += count
        if seen >= target:
            return highest
    return buckets[-1][0]


def difference(before, after):
    """Buckets of `after` minus those of `before`, empty ones dropped."""
    earlier = dict(map(tuple, before))
    return [(ns, count - earlier.get(ns, 0)) for ns, count in after if count - earlier.get(ns, 0) > 0]


def main(before_path, after_path):
    before = json.load(open(before_path))["stages"]
    after = json.load(open(after_path))["stages"]
    for stage, buckets in after.items():
        step = difference(before.get(stage, []), buckets)
        if not step:
            print(f"{stage} 0 - - -")
            continue
        count = sum(c for _, c in step)
        p = [percentile(step, f) / 1000 for f in (0.50, 0.99, 0.999)]
        print(f"{stage} {count} {p[0]:.1f} {p[1]:.1f} {p[2]:.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
