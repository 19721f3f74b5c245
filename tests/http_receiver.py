"""A real HTTP server on loopback that records the callbacks it receives."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler

from tests.loopback import loopback_server


class Receiver:
    """Records POSTs; answers each with the next status in `statuses` (then 200), after
    `delay` seconds (a tarpit: a receiver that holds the connection)."""

    def __init__(
        self, statuses: list[int] | None = None, *, delay: float = 0, host: str = "127.0.0.1"
    ) -> None:
        self.statuses = list(statuses or [])
        self.delay = delay
        self.received: list[tuple[dict, dict]] = []
        self.raw: list[bytes] = []  # the exact bodies, for signature checks
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                body = self.rfile.read(length)
                if receiver.delay:
                    time.sleep(receiver.delay)
                receiver.raw.append(body)
                receiver.received.append((dict(self.headers), json.loads(body)))
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = loopback_server(Handler, host)
        self.url = f"http://{host}:{self.server.server_port}/hook"
