"""A real HTTP server on loopback that answers from a script, for the client's retry tests:
each request gets the next (status, headers, JSON body) and is recorded."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback import loopback_server

Answer = tuple[int, dict[str, str], Any]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class ScriptedServer:
    answers: list[Answer]
    seen: list[Seen] = field(default_factory=list)
    url: str = ""


def _body(raw: bytes) -> Any:
    """JSON as parsed; anything else (a multipart upload) as its bytes."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw


@contextmanager
def scripted_server(answers: list[Answer]) -> Iterator[ScriptedServer]:
    script = ScriptedServer(list(answers))

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            script.seen.append(
                Seen(
                    self.command,
                    self.path,
                    dict(self.headers),
                    _body(raw),
                    time.monotonic(),
                )
            )
            status, headers, body = (
                script.answers.pop(0) if script.answers else (500, {}, {"error": "no more"})
            )
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = loopback_server(Handler)
    script.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield script
    finally:
        server.shutdown()
        server.server_close()
