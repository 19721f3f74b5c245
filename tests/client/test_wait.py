"""A wait's timeout against a real loopback server whose event stream stays open with
heartbeats only (a job that never starts): the wait ends at its timeout, sync and async."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

import pytest

from pdfreports import AsyncClient, Client, WaitTimeout
from tests.loopback import loopback_server

QUEUED = {"job_id": "7d5c", "status": "queued", "seq": 1}


@contextmanager
def heartbeats_only(*, first_event: bool) -> Iterator[str]:
    """A service whose job stays queued: its status answers queued, its event stream sends
    a heartbeat comment every 50 ms for 30 s (after one event with an id, if asked)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if not self.path.endswith("/events"):
                body = json.dumps(QUEUED).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            if first_event:
                self.wfile.write(f"id: 1\ndata: {json.dumps(QUEUED)}\n\n".encode())
            ends = time.monotonic() + 30
            try:
                while time.monotonic() < ends:
                    self.wfile.write(b": heartbeat\n\n")
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:  # the client hung up
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = loopback_server(Handler)
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("first_event", [False, True])
def test_a_wait_ends_at_its_timeout_while_the_stream_sends_heartbeats(first_event):
    with heartbeats_only(first_event=first_event) as url, Client(url, "k") as client:
        started = time.monotonic()
        with pytest.raises(WaitTimeout):
            client.job("7d5c").wait(timeout=0.5)
        took = time.monotonic() - started
    assert took < 5, took  # not the stream's 30 s (before: for as long as it stayed open)


@pytest.mark.parametrize("first_event", [False, True])
def test_an_async_wait_ends_at_its_timeout_while_the_stream_sends_heartbeats(first_event):
    async def wait() -> None:
        async with AsyncClient(url, "k") as client:
            await client.job("7d5c").wait(timeout=0.5)

    with heartbeats_only(first_event=first_event) as url:
        started = time.monotonic()
        with pytest.raises(WaitTimeout):
            asyncio.run(wait())
        took = time.monotonic() - started
    assert took < 5, took
