"""A real HTTP server on loopback that records the callbacks it receives."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """Records POSTs; answers each with the next status in `statuses` (then 200)."""

    def __init__(self, statuses: list[int] | None = None, *, host: str = "127.0.0.1") -> None:
        self.statuses = list(statuses or [])
        self.received: list[tuple[dict, dict]] = []
        self.raw: list[bytes] = []  # the exact bodies, for signature checks
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                body = self.rfile.read(length)
                receiver.raw.append(body)
                receiver.received.append((dict(self.headers), json.loads(body)))
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.url = f"http://{host}:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
