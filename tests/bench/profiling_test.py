#!/usr/bin/env python3
"""bench/profiling's pure pieces: stack collapsing and the flame graph's boxes, the stage
histograms read from /metrics with their step difference and interpolated percentiles,
pgbench log percentiles, and whether a latency curve rises with load within its spread."""
import io
import math
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "profiling"))
import flamegraph  # noqa: E402
import monotone  # noqa: E402
import pgbench_latency  # noqa: E402
import stages  # noqa: E402

PERF_SCRIPT = """storeapi 7 [000] 1.0: 1 cpu-clock:
\t  aa llhttp_execute+0x10 (/x/storeapi)
\t  bb main+0x5 (/x/storeapi)

storeapi 7 [001] 1.1: 1 cpu-clock:
\t  cc [unknown] (/usr/lib/libc.so.6)
\t  bb main+0x5 (/x/storeapi)

storeapi 7 [000] 1.2: 1 cpu-clock:
\t  aa llhttp_execute+0x22 (/x/storeapi)
\t  bb main+0x9 (/x/storeapi)
"""


class FlameGraph(unittest.TestCase):
    def test_stacks_are_collapsed_root_first_without_offsets(self):
        stacks = flamegraph.collapse(io.StringIO(PERF_SCRIPT))
        self.assertEqual(stacks, {("storeapi", "main", "llhttp_execute"): 2, ("storeapi", "main", "[libc.so.6]"): 1})

    def test_boxes_are_as_wide_as_their_share(self):
        svg = flamegraph.render(flamegraph.tree(flamegraph.collapse(io.StringIO(PERF_SCRIPT))), "t")
        self.assertIn("<title>main (3 samples, 100.00%)</title>", svg)
        self.assertIn('<title>llhttp_execute (2 samples, 66.67%)</title><rect x="400.0" y=', svg)
        self.assertIn('width="800.0"', svg)
        self.assertTrue(svg.startswith("<svg") and svg.endswith("</svg>\n"))


class Stages(unittest.TestCase):
    SCRAPE = """# TYPE storeapi_request_stage_seconds histogram
storeapi_request_stage_seconds_bucket{stage="parse",le="1e-06"} 10
storeapi_request_stage_seconds_bucket{stage="parse",le="2e-06"} 60
storeapi_request_stage_seconds_bucket{stage="parse",le="+Inf"} 60
storeapi_request_stage_seconds_sum{stage="parse"} 0.0001
storeapi_request_stage_seconds_count{stage="parse"} 60
storeapi_request_stage_seconds_bucket{stage="db",le="1e-06"} 0
storeapi_request_stage_seconds_bucket{stage="db",le="2e-06"} 0
storeapi_request_stage_seconds_bucket{stage="db",le="+Inf"} 0
storeapi_http_request_duration_seconds_bucket{route="/v1/store",le="0.001"} 7
"""

    def test_the_family_s_cumulative_buckets_are_read_by_stage(self):
        self.assertEqual(stages.parse(self.SCRAPE), {
            "parse": [(1e-06, 10), (2e-06, 60), (math.inf, 60)],
            "db": [(1e-06, 0), (2e-06, 0), (math.inf, 0)],
        })

    def test_the_step_is_after_minus_before(self):
        self.assertEqual(stages.difference([(1e-6, 2), (2e-6, 3), (math.inf, 3)], [(1e-6, 5), (2e-6, 6), (math.inf, 10)]),
                         [(1e-6, 3), (2e-6, 3), (math.inf, 7)])
        self.assertEqual(stages.difference([], [(1e-6, 5), (math.inf, 5)]), [(1e-6, 5), (math.inf, 5)])

    def test_percentiles_interpolate_within_the_bucket_as_histogram_quantile(self):
        buckets = [(0.001, 50), (0.002, 100), (0.004, 200), (math.inf, 200)]
        self.assertAlmostEqual(stages.percentile(buckets, 0.10), 0.0004)  # first bucket: from 0
        self.assertAlmostEqual(stages.percentile(buckets, 0.50), 0.002)
        self.assertAlmostEqual(stages.percentile(buckets, 0.75), 0.003)
        self.assertAlmostEqual(stages.percentile(buckets, 0.99), 0.00396)
        self.assertIsNone(stages.percentile([(0.001, 0), (math.inf, 0)], 0.5))

    def test_a_rank_above_the_last_bound_is_that_bound(self):
        self.assertEqual(stages.percentile([(0.001, 1), (10.0, 98), (math.inf, 100)], 0.999), 10.0)

    def test_main_prints_each_stage_s_step(self):
        later = self.SCRAPE.replace('le="2e-06"} 60', 'le="2e-06"} 110').replace('le="+Inf"} 60', 'le="+Inf"} 110')
        with tempfile.TemporaryDirectory() as d:
            before, after = os.path.join(d, "before.prom"), os.path.join(d, "after.prom")
            open(before, "w").write(self.SCRAPE)
            open(after, "w").write(later)
            out = io.StringIO()
            with redirect_stdout(out):
                stages.main(before, after)
        # 50 more parses, all in (1 µs, 2 µs]: p50 is the bucket's middle.
        self.assertEqual(out.getvalue().splitlines(), ["parse 50 1.5 2.0 2.0", "db 0 - - -"])


class PgbenchLatency(unittest.TestCase):
    def test_percentiles_of_the_logged_latencies(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as log:
            for i in range(1, 1001):
                log.write(f"0 {i} {i * 10} 0 1700000000 0\n")
        out = io.StringIO()
        with redirect_stdout(out):
            pgbench_latency.main(2.0, [log.name])
        os.unlink(log.name)
        values = dict(line.split() for line in out.getvalue().splitlines())
        self.assertEqual(values["achieved_rate"], "500.0")
        self.assertEqual(values["p50_us"], "5010.0")
        self.assertEqual(values["p99_us"], "9910.0")
        self.assertEqual(values["max_us"], "10000.0")


def curve(rows):
    """bench/profile's curve TSV from (side, load, p50, p99, p99.9) rows, one per round."""
    lines = ["side\tload_pct\toffered_rps\tachieved_rps\tp50_us\tp99_us\tp99.9_us\tmax_us\tunanswered\n",
             "storeapi\tsaturation\t1000\t1000\t99999\t99999\t99999\t99999\t0\n"]
    for side, load, p50, p99, p999 in rows:
        lines.append(f"{side}\t{load}\t{load * 10}\t{load * 10}\t{p50}\t{p99}\t{p999}\t{p999}\t0\n")
    return lines


class Monotone(unittest.TestCase):
    # Seen failing: with violations() finding nothing, the curve that falls beyond its
    # spread passed unnamed.
    RISING = [("storeapi", 10, 300, 900, 1000), ("storeapi", 10, 320, 950, 1100),
              ("storeapi", 50, 1500, 4000, 5000), ("storeapi", 50, 1400, 4100, 5200)]

    def test_a_curve_that_rises_with_load_passes(self):
        self.assertEqual(monotone.check(curve(self.RISING)), [])
        self.assertEqual(monotone.title(curve(self.RISING)), "")

    def test_a_curve_that_falls_beyond_its_spread_is_named(self):
        # p99 at 10 % is 5 ms in both rounds (others' builds), 1 ms at 25 %.
        rows = [("storeapi", 10, 300, 5000, 6000), ("storeapi", 10, 310, 5100, 6100),
                ("storeapi", 25, 320, 1000, 6500), ("storeapi", 25, 330, 1100, 6600),
                ("baseline", 10, 200, 400, 500), ("baseline", 25, 210, 450, 550)]
        warnings = monotone.check(curve(rows))
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("storeapi p99 is not monotone within its spread over 2 round(s)", warnings[0])
        self.assertIn("5.00-5.10 ms at 10 % but 1.00-1.10 ms at 25 %", warnings[0])
        self.assertEqual(monotone.title(curve(rows)), "NOT MONOTONE (storeapi p99): a busy machine, or faster busy than idle")

    def test_a_fall_within_the_spread_is_noise(self):
        # p50 dips at 25 % in one round, but the rounds overlap: not a contradiction.
        rows = [("storeapi", 10, 300, 900, 1000), ("storeapi", 10, 400, 950, 1000),
                ("storeapi", 25, 350, 1000, 1100), ("storeapi", 25, 290, 1000, 1100)]
        self.assertEqual(monotone.check(curve(rows)), [])

    def test_medians_of_the_rounds_are_plotted(self):
        self.assertEqual(monotone.medians(curve(self.RISING), "storeapi"), ["100 310 925 1050", "500 1450 4050 5100"])


if __name__ == "__main__":
    unittest.main()
