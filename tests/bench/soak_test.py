#!/usr/bin/env python3
"""bench/profiling/soak.py, the summary of bench/soak's per-minute records: which minutes
are compared, the ratios against the goals, a table that grows with its rows told from one
that bloats, and acknowledged writes missing from the database named."""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "profiling"))
import soak  # noqa: E402

LATENCY_HEADER = "minute\tscenario\toffered_rps\tachieved_rps\tp50_us\tp99_us\tnon_2xx\tunanswered\tacknowledged\tfound\n"
STATE_HEADER = ("minute\tload1\tserver_rss_kb\tdispatcher_rss_kb\tidempotency_keys\toutbox_slots\twebhooks\temails"
                "\tdatabase_bytes\tserver_anon_kb\tdispatcher_anon_kb\n")
TABLES_HEADER = "minute\ttable\tbytes\tindex_bytes\tlive\tdead\tautovacuum\tautoanalyze\n"
MIB = 1 << 20


def write_run(directory, minutes, p99, rss, tables, lost_minute=None):
    """A run of `minutes`: p99(m) in µs for a read and a write scenario, rss(m) in kB,
    tables {name: (bytes(m), live(m))}; the write scenario loses one write in lost_minute."""
    with open(os.path.join(directory, "soak-latency.tsv"), "w") as f:
        f.write(LATENCY_HEADER)
        for m in range(1, minutes + 1):
            f.write("%d\tstore\t8\t8.0\t200\t%d\t0\t0\t\t\n" % (m, p99(m)))
            found = 99 if m == lost_minute else 100
            f.write("%d\tstock-hot\t8\t8.0\t900\t%d\t0\t0\t100\t%d\n" % (m, p99(m), found))
            f.write("%d\tstock\t\t\t\t\t\t\t%d\t%d\n" % (m, 1000 + 100 * m, 1000 + 100 * m))
    with open(os.path.join(directory, "soak-state.tsv"), "w") as f:
        f.write(STATE_HEADER)
        for m in range(0, minutes + 2):
            f.write("%d\t3.5\t%d\t9000\t5000\t10\t%d\t0\t%d\t%d\t2000\n" % (m, rss(m), 60 * m, 100 * MIB, rss(m) - 10000))
    with open(os.path.join(directory, "soak-tables.tsv"), "w") as f:
        f.write(TABLES_HEADER)
        for m in range(0, minutes + 2):
            for name, (size, live) in tables.items():
                f.write("%d\t%s\t%d\t0\t%d\t7\t%d\t0\n" % (m, name, size(m), live(m), m // 10))


def row(text, first_cell):
    return next(line for line in text.splitlines() if line.startswith("| " + first_cell))


class Windows(unittest.TestCase):
    def test_ten_minutes_after_the_warm_up_against_the_last_ten(self):
        first, last = soak.windows(list(range(1, 61)), 15)
        self.assertEqual(first, list(range(16, 26)))
        self.assertEqual(last, list(range(51, 61)))

    def test_a_short_run_compares_halves_of_what_is_left(self):
        first, last = soak.windows(list(range(1, 6)), 1)
        self.assertEqual((first, last), ([2, 3], [4, 5]))

    def test_at_least_one_minute_each(self):
        self.assertEqual(soak.windows([1, 2], 1), ([2], [2]))

    def test_the_median_leaves_one_slow_minute_out(self):
        series = {m: 10.0 for m in range(1, 11)}
        series[4] = 500.0
        self.assertEqual(soak.window_median(series, list(range(1, 11))), 10.0)


class Summary(unittest.TestCase):
    def summary(self, **kwargs):
        with tempfile.TemporaryDirectory() as d:
            write_run(d, 40, **kwargs)
            return soak.summary(d, 10)

    def steady(self):
        return {"orders": (lambda m: 50 * MIB, lambda m: 1000)}

    def test_a_steady_run_meets_every_goal(self):
        text = self.summary(p99=lambda m: 20000, rss=lambda m: 16000, tables=self.steady())
        self.assertIn("minutes 11-20 against 31-40", text)
        self.assertIn("| store p99 ms (8.0 req/s) | 20.00 | 20.00 | 1.00 | ok |", text)
        self.assertIn("| server RSS MiB | 15.6 | 15.6 | 1.00 | ok |", text)
        self.assertIn("| server anonymous RSS MiB | 5.9 | 5.9 | 1.00 | ok |", text)
        self.assertIn("| orders | 50.0 | 50.0 | 1.00 | 1.00 | 1.00 | 7 | 4 | steady |", text)
        self.assertIn("writes acknowledged 4000, found in the database 4000", text)
        self.assertNotIn("over", text)

    def test_p99_over_1_1x_and_rss_over_1_05x_are_flagged(self):
        text = self.summary(p99=lambda m: 20000 if m <= 20 else 23000, rss=lambda m: 16000 + 60 * m,
                            tables=self.steady())
        self.assertIn("| 1.15 | **over 1.10x** |", row(text, "store p99"))
        self.assertIn("**over 1.05x**", row(text, "server RSS"))
        self.assertIn("**over 1.05x**", row(text, "server anonymous RSS"))
        self.assertIn("| ok |", row(text, "dispatcher RSS"))

    def test_a_table_growing_with_its_rows_is_data_one_growing_past_them_is_bloat(self):
        tables = {"stock_movements": (lambda m: MIB * (10 + m), lambda m: 1000 * (10 + m)),
                  "variants": (lambda m: MIB * (10 + m), lambda m: 1000)}
        text = self.summary(p99=lambda m: 20000, rss=lambda m: 16000, tables=tables)
        self.assertIn("grows with its rows (data written)", row(text, "stock_movements"))
        self.assertIn("**grows beyond its rows**", row(text, "variants"))

    def test_a_lost_write_is_named_with_its_minute_and_scenario(self):
        text = self.summary(p99=lambda m: 20000, rss=lambda m: 16000, tables=self.steady(), lost_minute=7)
        self.assertIn("writes acknowledged 4000, found in the database 3999; DIFFER: minute 7 stock-hot 100/99", text)


    def test_runs_without_the_anonymous_rss_are_summarized_without_it(self):
        with tempfile.TemporaryDirectory() as d:
            write_run(d, 40, p99=lambda m: 20000, rss=lambda m: 16000, tables=self.steady())
            path = os.path.join(d, "soak-state.tsv")
            with open(path) as f:
                lines = ["\t".join(line.rstrip("\n").split("\t")[:9]) + "\n" for line in f]
            with open(path, "w") as f:
                f.writelines(lines)
            text = soak.summary(d, 10)
        self.assertIn("| server RSS MiB |", text)
        self.assertNotIn("anonymous", text)


class Plot(unittest.TestCase):
    def test_one_column_per_scenario_reads_apart_from_writes(self):
        with tempfile.TemporaryDirectory() as d:
            write_run(d, 3, p99=lambda m: 1000 * m, rss=lambda m: 16000, tables=self.tables())
            out = os.path.join(d, "plot")
            soak.plot(d, out)
            with open(os.path.join(out, "p99-reads.dat")) as f:
                self.assertEqual(f.read(), "minute\tstore\n1\t1\n2\t2\n3\t3\n")
            with open(os.path.join(out, "p99-writes.dat")) as f:
                self.assertEqual(f.readline(), "minute\tstock-hot\n")
            with open(os.path.join(out, "tables.dat")) as f:
                self.assertEqual(f.readline(), "minute\tgrowing\tstill\n")

    def tables(self):
        return {"growing": (lambda m: MIB * m, lambda m: m), "still": (lambda m: MIB, lambda m: 1)}

    def test_load_is_the_mean_and_range(self):
        with tempfile.TemporaryDirectory() as d:
            write_run(d, 3, p99=lambda m: 1000, rss=lambda m: 16000, tables=self.tables())
            buf = io.StringIO()
            with redirect_stdout(buf):
                soak.main(["soak.py", "load", os.path.join(d, "soak-state.tsv")])
            self.assertEqual(buf.getvalue(), "3.5, 3.5-3.5\n")


if __name__ == "__main__":
    unittest.main()
