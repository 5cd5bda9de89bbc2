#!/usr/bin/env python3
"""bench/soak's per-minute records: the plot's data and the first-vs-last summary.

  soak.py summary DIR WARMUP   markdown: the first ten minutes after WARMUP against the
                               last ten (fewer in a short run: half of what is left each),
                               and whether every acknowledged write is in the database
  soak.py plot DIR OUT         the data files of bench/profiling/soak.gp, into OUT
  soak.py load STATE.tsv       "mean (min-max)" of the run's 1-minute load average

DIR holds bench/soak's soak-latency.tsv, soak-state.tsv and soak-tables.tsv (their columns
are in their header lines). A window's figure is the median of its minutes' figures (one
minute that a busy shared machine slowed does not move it). The goals: p99 within 1.1x,
RSS within 1.05x; a table's bytes (table and indexes) within 1.05x, or else growing no
faster than its live rows (the data written, not bloat: its bytes per live row within
1.05x)."""
import os
import statistics
import sys

P99_GOAL = 1.1
STEADY_GOAL = 1.05
WINDOW = 10


def read_tsv(path):
    """Rows of a TSV with a header line, as dicts."""
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def number(text):
    return float(text) if text not in ("", None) else None


def windows(minutes, warmup):
    """(first, last): the minutes compared, as lists. Each is ten minutes, or half of what
    is left after the warm-up when that is less (at least one minute each)."""
    measured = [m for m in minutes if m > warmup]
    width = max(1, min(WINDOW, len(measured) // 2))
    return measured[:width], measured[-width:]


def window_median(series, window):
    """The median of {minute: value} over the window's minutes that have a value."""
    values = [series[m] for m in window if series.get(m) is not None]
    return statistics.median(values) if values else None


def ratio(first, last):
    if first is None or last is None:
        return None
    if first == 0:
        return 1.0 if last == 0 else float("inf")
    return last / first


def verdict(value, goal):
    if value is None:
        return "-"
    return "ok" if value <= goal else "**over %.2fx**" % goal


def series_of(rows, key, field, minute_field="minute"):
    """{key value: {minute: number}} from rows."""
    out = {}
    for row in rows:
        minute = int(row[minute_field])
        out.setdefault(row[key] if key else "", {})[minute] = number(row.get(field))
    return out


def table_verdict(bytes_ratio, per_row_ratio):
    if bytes_ratio is None:
        return "-"
    if bytes_ratio <= STEADY_GOAL:
        return "steady"
    if per_row_ratio is not None and per_row_ratio <= STEADY_GOAL:
        return "grows with its rows (data written)"
    return "**grows beyond its rows**"


def lost_writes(latency_rows):
    """(acknowledged, found, [(minute, scenario, acknowledged, found), ...] where they differ)."""
    acked = found = 0
    differ = []
    for row in latency_rows:
        a, f = number(row.get("acknowledged")), number(row.get("found"))
        if a is None or f is None:
            continue
        if row["scenario"] != "stock":
            acked, found = acked + a, found + f
        if a != f:
            differ.append((int(row["minute"]), row["scenario"], int(a), int(f)))
    return int(acked), int(found), differ


def fmt(value, scale=1.0, digits=1):
    return "-" if value is None else "%.*f" % (digits, value / scale)


def summary(directory, warmup):
    latency = read_tsv(os.path.join(directory, "soak-latency.tsv"))
    state = read_tsv(os.path.join(directory, "soak-state.tsv"))
    tables = read_tsv(os.path.join(directory, "soak-tables.tsv"))
    minutes = sorted({int(r["minute"]) for r in latency if r["scenario"] != "stock"})
    first, last = windows(minutes, warmup)
    lines = ["minutes %d-%d against %d-%d (median of each window's minutes)" % (first[0], first[-1], last[0], last[-1]), ""]
    lines += ["| series | first | last | last/first | goal |", "|---|---|---|---|---|"]
    row_of = lambda name, a, b, r, goal: "| %s | %s | %s | %s | %s |" % (name, a, b, fmt(r, digits=2), goal)

    achieved = series_of([r for r in latency if r["scenario"] != "stock"], "scenario", "achieved_rps")
    p99 = series_of([r for r in latency if r["scenario"] != "stock"], "scenario", "p99_us")
    for scenario in achieved:
        a, b = window_median(p99[scenario], first), window_median(p99[scenario], last)
        r = ratio(a, b)
        lines.append(row_of("%s p99 ms (%s req/s)" % (scenario, fmt(window_median(achieved[scenario], last))),
                            fmt(a, 1000, 2), fmt(b, 1000, 2), r, verdict(r, P99_GOAL)))
    for field, name, goal in (("server_rss_kb", "server RSS MiB", STEADY_GOAL),
                              ("server_anon_kb", "server anonymous RSS MiB", STEADY_GOAL),
                              ("dispatcher_rss_kb", "dispatcher RSS MiB", STEADY_GOAL),
                              ("dispatcher_anon_kb", "dispatcher anonymous RSS MiB", STEADY_GOAL)):
        if field not in state[0]:
            continue  # recorded by later versions of bench/soak only
        series = series_of(state, None, field)[""]
        a, b = window_median(series, first), window_median(series, last)
        r = ratio(a, b)
        lines.append(row_of(name, fmt(a, 1024), fmt(b, 1024), r, verdict(r, goal)))
    for field, name in (("idempotency_keys", "idempotency-key rows"), ("outbox_slots", "outbox slots"),
                        ("database_bytes", "database MiB"), ("load1", "load average (1 min)")):
        series = series_of(state, None, field)[""]
        a, b = window_median(series, first), window_median(series, last)
        scale, digits = (1 << 20, 1) if field == "database_bytes" else (1, 2 if field == "load1" else 0)
        lines.append(row_of(name, fmt(a, scale, digits), fmt(b, scale, digits), ratio(a, b), ""))

    lines += ["", "| table | MiB first | MiB last | last/first | live rows last/first | bytes per row last/first | dead tuples last | autovacuum runs | verdict |",
              "|---|---|---|---|---|---|---|---|---|"]
    total = {}
    for row in tables:
        total.setdefault(row["table"], {})[int(row["minute"])] = row
    for table in sorted(total):
        by_minute = total[table]
        size = {m: number(r["bytes"]) + number(r["index_bytes"]) for m, r in by_minute.items()}
        live = {m: number(r["live"]) for m, r in by_minute.items()}
        a, b = window_median(size, first), window_median(size, last)
        if max(size.values()) < (1 << 20):
            continue  # under a MiB throughout: nothing to see
        per_row = {m: size[m] / live[m] for m in size if live.get(m)}
        bytes_ratio, per_row_ratio = ratio(a, b), ratio(window_median(per_row, first), window_median(per_row, last))
        runs = [number(r["autovacuum"]) for r in by_minute.values()]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %d | %s |" % (
            table, fmt(a, 1 << 20), fmt(b, 1 << 20), fmt(bytes_ratio, digits=2),
            fmt(ratio(window_median(live, first), window_median(live, last)), digits=2), fmt(per_row_ratio, digits=2),
            fmt(number(by_minute[max(by_minute)]["dead"]), digits=0), int(max(runs)), table_verdict(bytes_ratio, per_row_ratio)))

    acked, found, differ = lost_writes(latency)
    lines += ["", "writes acknowledged %d, found in the database %d%s" % (
        acked, found, "" if not differ else "; DIFFER: " + ", ".join("minute %d %s %d/%d" % d for d in differ))]
    return "\n".join(lines)


def wide(rows, key, field, scale=1.0):
    """'minute v1 v2 ...' lines with a header, one column per key value (in first-seen order)."""
    keys, values = [], {}
    for row in rows:
        if row[key] not in keys:
            keys.append(row[key])
        v = number(row.get(field))
        values.setdefault(int(row["minute"]), {})[row[key]] = "NaN" if v is None else "%g" % (v / scale)
    out = ["minute\t" + "\t".join(keys)]
    for minute in sorted(values):
        out.append("%d\t%s" % (minute, "\t".join(values[minute].get(k, "NaN") for k in keys)))
    return "\n".join(out) + "\n"


def plot(directory, out):
    os.makedirs(out, exist_ok=True)
    latency = [r for r in read_tsv(os.path.join(directory, "soak-latency.tsv")) if r["scenario"] != "stock"]
    tables = read_tsv(os.path.join(directory, "soak-tables.tsv"))
    for row in tables:
        row["mib"] = str((number(row["bytes"]) + number(row["index_bytes"])) / (1 << 20))
    sizes = {}
    for row in tables:
        sizes.setdefault(row["table"], []).append(number(row["mib"]))
    moving = sorted(sizes, key=lambda t: min(sizes[t]) - max(sizes[t]))[:8]  # the 8 whose size moved most
    tables = [r for r in tables if r["table"] in moving]
    writes = [r for r in latency if r["acknowledged"] != ""]
    reads = [r for r in latency if r["acknowledged"] == ""]
    files = {"p99-reads.dat": wide(reads, "scenario", "p99_us", 1000),
             "p99-writes.dat": wide(writes, "scenario", "p99_us", 1000),
             "tables.dat": wide(tables, "table", "mib"), "dead.dat": wide(tables, "table", "dead")}
    for name, text in files.items():
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)
    # The state as recorded, with the columns of later versions (NaN where a run lacks them).
    state = read_tsv(os.path.join(directory, "soak-state.tsv"))
    columns = ("minute", "load1", "server_rss_kb", "dispatcher_rss_kb", "idempotency_keys", "outbox_slots",
               "webhooks", "emails", "database_bytes", "server_anon_kb", "dispatcher_anon_kb")
    with open(os.path.join(out, "state.dat"), "w", encoding="utf-8") as f:
        f.write("\t".join(columns) + "\n")
        for row in state:
            f.write("\t".join(row.get(c) or "NaN" for c in columns) + "\n")


def load(path):
    values = [number(r["load1"]) for r in read_tsv(path)]
    return "%.1f, %.1f-%.1f" % (statistics.mean(values), min(values), max(values))


def main(argv):
    if len(argv) == 4 and argv[1] == "summary":
        print(summary(argv[2], int(argv[3])))
    elif len(argv) == 4 and argv[1] == "plot":
        plot(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "load":
        print(load(argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
