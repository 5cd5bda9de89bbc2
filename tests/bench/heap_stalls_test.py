#!/usr/bin/env python3
"""bench/profiling/heap_stalls.py, what bench/heap-stalls prints from heaptrack's file: the
stalls found as gaps between heaptrack's time stamps (not the start's), the heap at the
control interval's and each stall's ends, and the bytes each interval left by the program's
innermost function."""
import io
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "profiling", "heap_stalls.py")

# heaptrack_interpret's format (file format 3, numbers in hex): strings, instruction
# pointers (address, module, function), a trace tree, allocation infos (size, trace);
# "+ N"/"- N" allocate or free one of info N; "c MS" a time stamp.
HEADER = """v 10400 3
s 4 main
s 13 storeapi::a::f(int)
s 13 storeapi::b::g(int)
i 1000 0 1 0 0
t 1 0
i 2000 0 2 0 0
t 2 1
i 3000 0 3 0 0
t 3 1
a 400 2
a 200 3
"""


def stamps(start_ms, end_ms):
    return "".join("c %x\n" % ms for ms in range(start_ms, end_ms + 1, 500))


def run(text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, SCRIPT, f.name, *args], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


class HeapStalls(unittest.TestCase):
    def test_each_interval_names_what_it_left(self):
        # The start pauses the stamps (ignored); one 1 KiB block of f before the control
        # interval, 512 bytes of g in it, a stall at 20 s, then f's second block.
        text = (HEADER + "c 0\n+ 0\n" + stamps(3000, 15000) + "+ 1\n" + stamps(15500, 20000) +
                stamps(24000, 27000) + "+ 0\n- 1\n" + stamps(27500, 30000))
        result = run(text, "--every", "10")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = {line.split()[0] + line.split()[1]: line.split() for line in result.stdout.splitlines()
                if line.startswith(("control", "stall 1"))}
        self.assertEqual(rows["control10.0"][2:5], ["20.0", "1.5", "+0.5"])
        self.assertEqual(rows["stall1"][2:6], ["20.0", "30.0", "2.0", "+0.5"])
        out = result.stdout
        self.assertIn("+0.5  storeapi::b::g", out.split("== control")[1].split("==")[0])
        stall = out.split("== stall 1")[1].split("==")[0]
        self.assertIn("+1.0  storeapi::a::f", stall)
        self.assertIn("-0.5  storeapi::b::g", stall)

    def test_a_file_without_a_stall_is_refused(self):
        result = run(HEADER + stamps(0, 30000))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no stall found", result.stderr)


if __name__ == "__main__":
    unittest.main()
