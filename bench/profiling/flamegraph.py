#!/usr/bin/env python3
"""A flame graph (Brendan Gregg's picture: one box per function on a stack, as wide as
the share of samples it was on the stack for, callers below callees) as a self-contained
SVG, from `perf script` output on stdin. Debian packages no FlameGraph scripts, hence
this one; hover a box for its function, samples and share.
  perf script -i perf.data | flamegraph.py "TITLE" > out.svg
"""
import hashlib
import html
import re
import sys

WIDTH = 1200
ROW = 16
MIN_WIDTH = 2.0  # px: narrower boxes (and their children) are left out, keeping files small
OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def collapse(lines):
    """{(frame, ...) root first: samples} from perf script's text."""
    stacks = {}
    comm, frames = None, []

    def flush():
        if comm is not None:
            key = (comm,) + tuple(reversed(frames))
            stacks[key] = stacks.get(key, 0) + 1

    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames = None, []
        elif line[0] not in " \t":
            flush()
            comm, frames = line.split()[0], []
        else:
            parts = line.split(None, 1)
            if len(parts) < 2:
                continue
            symbol = parts[1].rsplit(" (", 1)
            name = OFFSET.sub("", symbol[0].strip())
            if name == "[unknown]" and len(symbol) > 1:
                name = "[" + symbol[1].rstrip(")").rsplit("/", 1)[-1] + "]"
            frames.append(name)
    flush()
    return stacks


def tree(stacks):
    root = {"name": "all", "count": 0, "children": {}}
    for stack, count in stacks.items():
        root["count"] += count
        node = root
        for frame in stack:
            node = node["children"].setdefault(frame, {"name": frame, "count": 0, "children": {}})
            node["count"] += count
    return root


def depth(node):
    return 1 + max((depth(c) for c in node["children"].values()), default=0)


def colour(name):
    h = hashlib.md5(name.encode()).digest()
    return f"rgb({205 + h[0] % 50},{80 + h[1] % 130},{h[2] % 60})"


def render(root, title):
    total = root["count"] or 1
    height = (depth(root) + 2) * ROW + 20
    scale = WIDTH / total
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<rect width="100%" height="100%" fill="#f8f8f8"/>',
           f'<text x="{WIDTH / 2}" y="16" text-anchor="middle" font-size="14">{html.escape(title)}</text>']

    def box(node, x, level):
        w = node["count"] * scale
        if w < MIN_WIDTH:
            return
        y = height - (level + 1) * ROW
        label = f'{node["name"]} ({node["count"]} samples, {100 * node["count"] / total:.2f}%)'
        out.append(f'<g><title>{html.escape(label)}</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW - 1}" fill="{colour(node["name"])}"/>')
        chars = int(w / 7)
        if chars >= 3:
            text = node["name"] if len(node["name"]) <= chars else node["name"][:chars - 2] + ".."
            out.append(f'<text x="{x + 2:.1f}" y="{y + ROW - 4}">{html.escape(text)}</text>')
        out.append("</g>")
        for child in sorted(node["children"].values(), key=lambda c: c["name"]):
            box(child, x, level + 1)
            x += child["count"] * scale

    box(root, 0.0, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "flame graph"
    sys.setrecursionlimit(10000)
    sys.stdout.write(render(tree(collapse(sys.stdin)), title))


if __name__ == "__main__":
    main()
