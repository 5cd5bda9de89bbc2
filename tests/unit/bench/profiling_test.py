#!/usr/bin/env python3
"""bench/profiling's pure pieces: stack collapsing and the flame graph's boxes, the stage
histograms' step difference and percentiles, pgbench log percentiles."""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "profiling"))
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
    def test_the_step_is_after_minus_before(self):
        self.assertEqual(stages.difference([[100, 2], [200, 1]], [[100, 5], [200, 1], [300, 4]]), [(100, 3), (300, 4)])

    def test_percentiles_name_the_bucket_holding_them(self):
        buckets = [(100, 50), (200, 49), (900, 1)]
        self.assertEqual(stages.percentile(buckets, 0.50), 100)
        self.assertEqual(stages.percentile(buckets, 0.99), 200)
        self.assertEqual(stages.percentile(buckets, 0.999), 900)


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
