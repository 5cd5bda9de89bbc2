#!/usr/bin/env python3
"""What a process kept allocated across its stalls, by call stack, from a heaptrack file.

    heap_stalls.py FILE [--every S] [--gap MS] [--skip S] [--top N] [--depth N]

heaptrack's timer writes a time stamp every 10 ms, so a process stopped by SIGSTOP shows
as a gap of at least --gap ms (default 2000) between two stamps (gaps in the first --skip
seconds, default 10, are the process starting). The heap is taken at the start of each
stall, at the end of the file, and --every seconds (default 30) before the first stall:
the interval before the first stall is the control (traffic, no stall), each later one
holds a stall and the traffic after it. Printed: each interval's heap at its end and its
change; the --top (default 8) innermost functions of the program's own (namespace
storeapi) whose bytes moved most over the run, with their bytes at each interval's start
and at the end; what each interval added or freed by function; and the --top stacks whose
bytes changed most in each interval, with their --depth innermost frames (default 10; the
allocator's own left out).
"""
import argparse
import collections
import subprocess
import sys

ALLOCATOR_FRAMES = ("malloc", "calloc", "realloc", "operator new", "operator new[]", "aligned_alloc",
                    "posix_memalign", "__libc_", "heaptrack")


def lines(path):
    # heaptrack compresses with zstd when it is installed, else with gzip.
    command = {"zst": ["zstd", "-dc"], "gz": ["gzip", "-dc"]}.get(path.rsplit(".", 1)[-1], ["cat"])
    cat = subprocess.Popen(command + [path], stdout=subprocess.PIPE, text=True, errors="replace")
    yield from cat.stdout
    cat.wait()


def stall_starts(path, gap_ms, skip_ms):
    """The time stamps (ms) after which the process stood still, and the last stamp."""
    starts, last = [], None
    for line in lines(path):
        if line.startswith("c "):
            stamp = int(line[2:], 16)
            if last is not None and stamp - last >= gap_ms and last >= skip_ms:
                starts.append(last)
            last = stamp
    return starts, last


class Trace:
    """The file's strings, instruction pointers and trace tree, read as they come."""

    def __init__(self):
        self.strings, self.ips, self.traces = [], [], []
        self.version = 0

    def take(self, line):
        kind, rest = line[0], line[2:].rstrip("\n")
        if kind == "v":
            fields = rest.split()
            self.version = int(fields[1], 16) if len(fields) > 1 else 0
        elif kind == "s":
            # From file format 3 on, a string is preceded by its length.
            self.strings.append(rest.split(" ", 1)[1] if self.version >= 3 else rest)
        elif kind == "i":
            fields = [int(f, 16) for f in rest.split()]
            self.ips.append((fields[0], fields[1], fields[2] if len(fields) > 2 else 0))
        elif kind == "t":
            ip, parent = (int(f, 16) for f in rest.split())
            self.traces.append((ip, parent))
        else:
            return False
        return True

    def string(self, index):
        return self.strings[index - 1] if 0 < index <= len(self.strings) else ""

    def frames(self, trace, depth):
        out = []
        while trace and len(out) < depth + 8:
            ip_index, trace = self.traces[trace - 1]
            address, module, function = self.ips[ip_index - 1]
            name = self.string(function) or f"{self.string(module).rsplit('/', 1)[-1]}+{address:#x}"
            if not out and name.startswith(ALLOCATOR_FRAMES):
                continue
            out.append(name)
        return out[:depth]


def holder_of(trace, t):
    """The innermost frame of the program's own code (namespace storeapi), without its
    arguments: what holds the bytes; else the innermost frame."""
    frames = trace.frames(t, 40) if t else []
    for frame in frames:
        if frame.startswith("storeapi::"):
            return frame.split("(", 1)[0]
    return frames[0] if frames else "?"


def snapshots(path, stamps):
    """Live bytes per trace, and RSS pages, at each of the (sorted) time stamps."""
    trace = Trace()
    infos = []  # allocation info index -> (size, trace)
    live = collections.Counter()  # trace -> bytes
    taken, want, rss = [], list(stamps), 0
    for line in lines(path):
        if not line or line[0] in "#\n":
            continue
        kind = line[0]
        if kind == "+":
            size, t = infos[int(line[2:], 16)]
            live[t] += size
        elif kind == "-":
            size, t = infos[int(line[2:], 16)]
            live[t] -= size
        elif kind == "a":
            size, t = (int(f, 16) for f in line[2:].split())
            infos.append((size, t))
        elif kind == "R":
            rss = int(line[2:], 16)
        elif kind == "c":
            stamp = int(line[2:], 16)
            while want and stamp > want[0]:
                taken.append((want.pop(0), +live, rss))
        else:
            trace.take(line)
    while want:
        taken.append((want.pop(0), +live, rss))
    return trace, taken


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--every", type=float, default=30)
    parser.add_argument("--gap", type=int, default=2000)
    parser.add_argument("--skip", type=float, default=10)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()

    starts, last = stall_starts(args.file, args.gap, int(args.skip * 1000))
    if not starts:
        sys.exit("heap_stalls.py: no stall found (no gap of %d ms between heaptrack's time stamps)" % args.gap)
    stamps = [max(0, starts[0] - int(args.every * 1000))] + starts + [last]
    trace, taken = snapshots(args.file, stamps)
    page_kib = 4
    print("%-12s %8s %8s %10s %10s %9s" % ("interval", "from s", "to s", "heap kB", "delta kB", "RSS kB"))
    for k in range(1, len(taken)):
        (t0, live0, _), (t1, live1, rss1) = taken[k - 1], taken[k]
        name = "control" if k == 1 else f"stall {k - 1}"
        total0, total1 = sum(live0.values()), sum(live1.values())
        print("%-12s %8.1f %8.1f %10.1f %+10.1f %9d" % (name, t0 / 1000, t1 / 1000, total1 / 1024,
                                                       (total1 - total0) / 1024, rss1 * page_kib))
    holders = [holder_of(trace, t) for t in range(len(trace.traces) + 1)]
    # The heap by holder at each interval's start and at the end: a pool filling up, a
    # high-water mark taken once, or bytes that come and go.
    series = collections.defaultdict(lambda: [0] * len(taken))
    for i, (_, live, _) in enumerate(taken):
        for t, b in live.items():
            series[holders[t]][i] += b
    print("\n== kB held at each interval's start and at the end, by the innermost storeapi function")
    print("%-56s %s" % ("", " ".join("%7.0fs" % (t / 1000) for t, _, _ in taken)))
    for h, values in sorted(series.items(), key=lambda kv: -(max(kv[1]) - min(kv[1])))[:args.top]:
        print("%-56s %s" % (h[:56], " ".join("%8.1f" % (b / 1024) for b in values)))
    for k in range(1, len(taken)):
        (t0, live0, _), (t1, live1, _) = taken[k - 1], taken[k]
        name = "control" if k == 1 else f"stall {k - 1}"
        by_holder = collections.Counter()
        for t, b in live1.items():
            by_holder[holders[t]] += b
        for t, b in live0.items():
            by_holder[holders[t]] -= b
        moved = [h for h, b in by_holder.items() if b]
        print(f"\n== {name} ({t0 / 1000:.1f}-{t1 / 1000:.1f} s): by the innermost storeapi function, kB")
        for h in sorted(moved, key=lambda h: -abs(by_holder[h]))[:args.top]:
            print(f"{by_holder[h] / 1024:+9.1f}  {h[:140]}")
    for k in range(1, len(taken)):
        (t0, live0, _), (t1, live1, _) = taken[k - 1], taken[k]
        name = "control" if k == 1 else f"stall {k - 1}"
        delta = collections.Counter(live1)
        delta.subtract(live0)
        moved = sorted((t for t in delta if delta[t]), key=lambda t: -abs(delta[t]))[:args.top]
        print(f"\n== {name} ({t0 / 1000:.1f}-{t1 / 1000:.1f} s): stacks whose bytes changed most")
        for t in moved:
            print(f"{delta[t] / 1024:+9.1f} kB (now {live1[t] / 1024:.1f} kB)")
            for frame in trace.frames(t, args.depth):
                print(f"      {frame[:150]}")


if __name__ == "__main__":
    main()
