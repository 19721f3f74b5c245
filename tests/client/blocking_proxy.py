"""A reverse proxy on loopback in front of the live stack that refuses Server-Sent Events,
as some corporate proxies do, and forwards everything else (keeping the Host header, so
the service's links point back through the proxy)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

import httpx

from tests.loopback import loopback_server

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


@dataclass
class Proxy:
    url: str = ""
    paths: list[tuple[str, str, int]] = field(default_factory=list)  # method, path, status


@contextmanager
def sse_blocking_proxy(
    upstream: str, on_blocked: Callable[[], None] = lambda: None
) -> Iterator[Proxy]:
    """`on_blocked` runs after each refused stream is answered."""
    proxy = Proxy()
    http = httpx.Client(base_url=upstream, timeout=60)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            if self.path.split("?")[0].endswith("/events"):
                status, headers, body = 403, {"Content-Type": "text/html"}, b"<h1>Blocked</h1>"
            else:
                length = int(self.headers.get("Content-Length") or 0)
                answer = http.request(
                    self.command,
                    self.path,
                    content=self.rfile.read(length) if length else None,
                    headers={k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP},
                )
                status, body = answer.status_code, answer.content
                headers = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_BY_HOP}
            proxy.paths.append((self.command, self.path.split("?")[0], status))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            if status == 403:
                on_blocked()

        do_GET = do_POST = do_PATCH = _forward

        def log_message(self, *args: object) -> None:
            pass

    server = loopback_server(Handler)
    proxy.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        http.close()
