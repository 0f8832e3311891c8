"""A hostile HTTP server for the tests of outgoing requests, run as its own process:
``python tests/hostile_receiver.py LOG [ADDRESS [PORT]]``.

Listens on PORT (a free one unless given) of ADDRESS (127.0.0.1 unless given; the port is printed as the first
line of standard output) and
appends each request it receives to the JSON-lines file LOG (path, method, headers). The path chooses the trick:

- ``/ok``: 200 with a small JSON chat completion (``{"choices": [{"message": {"content": "A"}}]}``);
- ``/secret``: 200 with a body an internal service would not want read back (``INTERNAL-CONFIGURATION ...``);
- ``/redirect?to=URL`` (``&status=N``, 302 unless given): a redirect to URL;
- ``/to/PORT/...`` (any rest): a 307 redirect to ``http://127.0.0.1:PORT/ok`` (an endpoint whose path the client
  extends, such as a chat completions base URL, that redirects elsewhere);
- ``/trickle-headers``: the status line and headers one byte every 0.5 s (for up to 120 s);
- ``/trickle-body``: headers at once, then a body byte every 0.5 s (for up to 120 s);
- ``/huge``: 200 declaring 1 GiB and sending zeros until the client hangs up;
- ``/huge-chunked``: 200, chunked, no declared length, zeros until the client hangs up (at most 1 GiB).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

LOG = Path(sys.argv[1]) if len(sys.argv) > 1 else None
LOCK = threading.Lock()
GIB = 1024**3
BLOCK = b"\0" * 65536
SECRET = b'INTERNAL-CONFIGURATION {"admin": "listen localhost:2019", "password": "hunter2"}'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _record(self) -> None:
        if LOG is None:
            return
        entry = {"method": self.command, "path": self.path, "headers": dict(self.headers)}
        with LOCK, open(LOG, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    def do_GET(self):
        self._answer()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    def _send(self, status: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _answer(self) -> None:
        self._record()
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        try:
            if parts.path == "/ok":
                self._send(200, json.dumps({"choices": [{"message": {"content": "A"}}]}).encode())
            elif parts.path.startswith("/to/"):
                self._send(307, b"", {"Location": f"http://127.0.0.1:{parts.path.split('/')[2]}/ok"})
            elif parts.path == "/secret":
                self._send(200, SECRET)
            elif parts.path == "/redirect":
                status = int(query.get("status", ["302"])[0])
                self._send(status, b"", {"Location": query["to"][0]})
            elif parts.path == "/trickle-headers":
                self._trickle(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"X-Slow: y\r\n" * 1000)
            elif parts.path == "/trickle-body":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n")
                self._trickle(b"x" * 1000)
            elif parts.path == "/huge":
                self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Length: {GIB}\r\nConnection: close\r\n\r\n".encode())
                self._zeros(chunked=False)
            elif parts.path == "/huge-chunked":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                self._zeros(chunked=True)
            else:
                self._send(404, b"{}")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, as it should

    def _trickle(self, data: bytes) -> None:
        ends = time.monotonic() + 120
        for byte in data:
            if time.monotonic() > ends:
                return
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.5)

    def _zeros(self, *, chunked: bool) -> None:
        for _ in range(GIB // len(BLOCK)):
            if chunked:
                self.wfile.write(f"{len(BLOCK):x}\r\n".encode() + BLOCK + b"\r\n")
            else:
                self.wfile.write(BLOCK)


if __name__ == "__main__":
    address = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    server = ThreadingHTTPServer((address, int(sys.argv[3]) if len(sys.argv) > 3 else 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
