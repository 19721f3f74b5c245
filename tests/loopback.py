"""The loopback HTTP servers tests stand up (webhook receivers, data and file servers, a
time-stamping authority, proxies): each serves on a daemon thread of its own."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def loopback_server(
    handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1"
) -> ThreadingHTTPServer:
    """`handler` served on a free port of `host` until `shutdown()`. The loop looks for a
    shutdown every 10 ms: serve_forever's default of 0.5 s was waited out by every test
    that stopped a server (8 s of one process's run of tests/jobs, reports and accounts)."""
    server = ThreadingHTTPServer((host, 0), handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    ).start()
    return server
