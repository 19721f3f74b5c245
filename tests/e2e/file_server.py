"""Files served on loopback for downloadFrom (the test settings let the outbound rules
reach private networks): each path answers its bytes, named by Content-Disposition when
given a name, and every request's path and headers are kept."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

from tests.loopback import loopback_server


class FileServer:
    def __init__(self, files: dict[str, tuple[str, bytes]], *, delay: float = 0.0) -> None:
        """`files`: {path: (Content-Disposition file name, or "" for none, bytes)}; each
        answer starts `delay` seconds after its request."""
        self.requests: list[tuple[str, dict[str, str]]] = []
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append((self.path, dict(self.headers)))
                time.sleep(delay)
                if self.path not in files:
                    self.send_response(404)
                    self.end_headers()
                    return
                name, content = files[self.path]
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(content)))
                if name:
                    self.send_header("Content-Disposition", f'attachment; filename="{name}"')
                self.end_headers()
                self.wfile.write(content)

            def handle(self) -> None:
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a deadline test): nothing to answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = loopback_server(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
