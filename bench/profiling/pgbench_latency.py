#!/usr/bin/env python3
"""Percentiles of pgbench's per-transaction logs (pgbench -l), in the "name value" lines
bench/openloop prints. With --rate (-R) pgbench measures each transaction from its
scheduled start, so these include the schedule lag, as bench/openloop's do.
  pgbench_latency.py SECONDS LOG...
"""
import sys


def main(seconds, paths):
    latencies = []
    for path in paths:
        with open(path) as log:
            latencies.extend(int(line.split()[2]) for line in log if line.strip())
    latencies.sort()
    n = len(latencies)
    if n == 0:
        sys.exit("no transactions logged")
    def at(fraction):
        return latencies[min(n - 1, int(n * fraction))]
    print(f"achieved_rate {n / seconds:.1f}")
    for name, fraction in (("p50_us", 0.50), ("p90_us", 0.90), ("p99_us", 0.99), ("p99.9_us", 0.999), ("p99.99_us", 0.9999)):
        print(f"{name} {at(fraction):.1f}")
    print(f"max_us {latencies[-1]:.1f}")


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2:])
