#!/usr/bin/env python3
"""A webhook receiver on 127.0.0.1 for the benchmarks (bench/soak): answers every POST 200
and counts them. Prints its port on the first line of stdout; GET /count answers the
number of POSTs received so far."""
import http.server
import sys
import threading


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.posts = 0

    def add(self):
        with self.lock:
            self.posts += 1


counter = Counter()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0)))
        counter.add()
        self.answer(b'')

    def do_GET(self):
        self.answer(str(counter.posts).encode() if self.path == '/count' else b'')

    def answer(self, body):
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == '__main__':
    sys.exit(main())
