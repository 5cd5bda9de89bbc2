#!/usr/bin/env python3
"""bench/profiling's pure pieces: stack collapsing and the flame graph's boxes, the stage
histograms read from /metrics with their step difference and interpolated percentiles,
pgbench log percentiles."""
import io
import math
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "profiling"))
import flamegraph  # noqa: E402
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


if __name__ == "__main__":
    unittest.main()
