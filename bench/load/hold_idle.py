#!/usr/bin/env python3
"""Holds COUNT keep-alive connections to 127.0.0.1:PORT, each idle after one GET /healthz
(bench/load/idle-connections). Prints "ready" once every connection has its answer, then
keeps them open until stdin closes, and closes them all. One process holds at most what
its open-file limit allows: the benchmark starts several."""
import resource
import socket
import sys

port, count = int(sys.argv[1]), int(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"

conns = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(request)
    conns.append(s)
for s in conns:
    # /healthz answers fit one segment; read until the blank line and the short body.
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("connection closed before its answer")
        data += chunk
    if not data.startswith(b"HTTP/1.1 200"):
        sys.exit("unexpected answer: %r" % data[:80])
print("ready", flush=True)
sys.stdin.read()
for s in conns:
    s.close()
