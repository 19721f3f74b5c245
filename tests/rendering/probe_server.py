"""A loopback HTTP server that records every request it gets: a stand-in for an internal
service (or, with `location`, a host that redirects to one) that no document may reach."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from tests.loopback import loopback_server


class _Recorder(BaseHTTPRequestHandler):
    hits: list[str]
    location = ""
    body = b""
    content_type = "image/png"

    def do_GET(self) -> None:
        self.hits.append(self.path)
        if self.location:
            self.send_response(302)
            self.send_header("Location", self.location)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def recording_server(
    location: str = "", *, body: bytes = b"", content_type: str = "image/png"
) -> Iterator[tuple[int, list[str]]]:
    """(port, paths requested so far); answers `body`, or a 302 to `location`."""
    hits: list[str] = []
    attributes = {"hits": hits, "location": location, "body": body, "content_type": content_type}
    handler = type("Handler", (_Recorder,), attributes)
    server = loopback_server(handler)
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()
