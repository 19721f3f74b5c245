"""A receiver of Gotenberg's webhooks for the drop-in tests, which also serves a page."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

from tests.loopback import loopback_server


class WebhookReceiver:
    """A webhook receiver on loopback keeping each request's method, path, headers and body
    (the test settings allow private networks); a GET answers `page` (for the /url route)."""

    def __init__(self, page: bytes = b"") -> None:
        self.received: list[tuple[str, str, dict[str, str], bytes]] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(page)

            def _receive(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.command, self.path, dict(self.headers), body))
                self.send_response(200)
                self.end_headers()

            do_POST = do_PUT = _receive

            def log_message(self, *args: object) -> None:
                pass

        self.server = loopback_server(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def wait(self, count: int) -> None:
        deadline = time.monotonic() + 60
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(self.received) >= count, "the webhook never came"
