"""A webhook receiver for the tests, run as its own process: ``python tests/webhook_receiver.py LOG``.

Listens on a free loopback port (printed as the first line of standard output) and appends each request to
the JSON-lines file LOG twice: when it arrives (``"phase": "received"``, with path, headers and body) and
when it is answered (``"phase": "answered"``, with the status). The path chooses the answer:

- ``/ok``: 200;
- ``/fail-once``: 500 the first time, 200 after;
- ``/hang``: no answer until the file ``LOG.release`` exists, then 200;
- ``/trickle``: 200 with a body of 100 bytes sent one byte every 5 s (a per-read timeout never fires).
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

LOG = Path()  # the log file: the first argument, read when run (importing this module reads no arguments)
LOCK = threading.Lock()
SEEN: dict[str, int] = {}


def record(entry: dict) -> None:
    with LOCK, open(LOG, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with LOCK:
            SEEN[self.path] = SEEN.get(self.path, 0) + 1
            nth = SEEN[self.path]
        entry = {"path": self.path, "nth": nth, "headers": dict(self.headers), "body": base64.b64encode(body).decode()}
        record({"phase": "received", **entry})
        status = 200
        if self.path == "/fail-once" and nth == 1:
            status = 500
        elif self.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            try:
                for _ in range(100):
                    self.wfile.write(b".")
                    self.wfile.flush()
                    time.sleep(5)
            except OSError:  # the sender gave up
                record({"phase": "abandoned", "path": self.path, "nth": nth})
                return
            record({"phase": "answered", "path": self.path, "nth": nth, "status": 200})
            return
        elif self.path == "/hang":
            release = LOG.with_name(LOG.name + ".release")
            deadline = time.monotonic() + 300
            while not release.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        answer = b"received" if status == 200 else b"boom: the receiver failed"
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        record({"phase": "answered", "path": self.path, "nth": nth, "status": status})

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    LOG = Path(sys.argv[1])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
