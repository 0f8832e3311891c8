"""A small OpenAI-compatible chat completions server for the endpoint judges' tests, run as its own process.

``python tests/chat_endpoint_server.py LOG [--flaky]`` listens on a free loopback port, prints the port, and
answers ``POST /v1/chat/completions`` deterministically: the prompt's scale is the lines after ``Values:``
(``value: label``), and the answer is the value at ``sha256(prompt) mod n`` (``expected_answer``); a prompt
holding ``UNPARSABLE`` is answered with words no scale has. Usage counts the prompt's words and one answer
token. With ``--flaky`` the first request of every prompt answers 503 (the client must retry). Each request
is logged to LOG as a JSON line (its prompt, model and Authorization header).
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def scale_of(prompt: str) -> list[str]:
    lines = prompt.split("Values:\n", 1)[1].splitlines() if "Values:\n" in prompt else []
    return [line.split(":", 1)[0] for line in lines if ":" in line and not line.startswith("Q")]


def expected_answer(prompt: str) -> str:
    values = scale_of(prompt)
    return values[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(values)]


def main() -> None:
    log, flaky = sys.argv[1], "--flaky" in sys.argv
    lock = threading.Lock()
    seen: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            prompt = body["messages"][-1]["content"]
            with lock:
                first = prompt not in seen
                seen.add(prompt)
                with open(log, "a", encoding="utf-8") as out:
                    entry = {"path": self.path, "model": body["model"], "prompt": prompt}
                    entry["authorization"] = self.headers.get("Authorization")
                    out.write(json.dumps(entry) + "\n")
            if self.path != "/v1/chat/completions":
                self._send(404, {"error": "not found"})
            elif flaky and first:
                self._send(503, {"error": "busy"})
            else:
                text = "maybe, it depends" if "UNPARSABLE" in prompt else expected_answer(prompt)
                usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": 1}
                self._send(200, {"choices": [{"message": {"role": "assistant", "content": text}}], "usage": usage})

        def _send(self, code: int, payload: dict) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
