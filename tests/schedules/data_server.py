"""A loopback HTTP server that answers GETs with a set body, after a set delay: a schedule's
data_url, slow or large when a test wants it."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

from tests.loopback import loopback_server


class DataServer:
    def __init__(self, body: bytes, *, status: int = 200, delay: float = 0) -> None:
        self.body, self.status, self.delay = body, status, delay
        self.hits = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits += 1
                if server.delay:
                    time.sleep(server.delay)
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

            def log_message(self, *args: object) -> None:
                pass

        self.http = loopback_server(Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}/data.json"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
