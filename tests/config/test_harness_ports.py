"""The harness's ports: a server a test starts gets its port, and the test talks to it,
not to whatever else listens there."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from tests.livestack import wait_for_web
from tests.processes import free_port, start, stop


def test_a_free_port_is_not_handed_to_another_bind_to_port_zero():
    reserved = {free_port() for _ in range(20)}
    taken = []
    for _ in range(200):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        taken.append(sock)
    try:
        assert reserved.isdisjoint(sock.getsockname()[1] for sock in taken)
    finally:
        for sock in taken:
            sock.close()


def test_a_server_binding_with_reuseaddr_can_take_a_free_port():
    port = free_port()
    server = HTTPServer(("127.0.0.1", port), BaseHTTPRequestHandler)  # SO_REUSEADDR
    server.server_close()


def test_waiting_for_a_web_server_ignores_another_process_answering_on_its_port(tmp_path):
    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    squatter = HTTPServer(("127.0.0.1", free_port()), Answer)
    threading.Thread(target=squatter.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{squatter.server_address[1]}/livez"
    # Ours never says it runs on that address (as a uvicorn that lost the port would not).
    ours = start(["-c", "import time; time.sleep(30)"], env={}, log=tmp_path / "web.log")
    try:
        with pytest.raises(RuntimeError, match="did not start"):
            wait_for_web(url, ours, tmp_path / "web.log", timeout=1.5)
    finally:
        stop(ours)
        squatter.shutdown()
        squatter.server_close()
