"""The callback POST: checked address connected to, no proxies, bounded answer and time."""

from __future__ import annotations

import ipaddress
import socket
import time
from http.server import BaseHTTPRequestHandler

import pytest

from jobs import webhook_transport
from jobs.webhook_transport import WebhookRefused, address_allowed, webhook_post
from tests.http_receiver import Receiver
from tests.loopback import loopback_server


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.1",
        "169.254.169.254",
        "::1",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "64:ff9b:1::a00:1",  # local-use NAT64 of 10.0.0.1
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "::7f00:1",  # IPv4-compatible 127.0.0.1
        "2001:0:4136:e378:8000:63bf:f5ff:fffe",  # Teredo, client 10.0.0.1
        "fd00::1",
        "224.0.0.1",
    ],
)
def test_internal_addresses_are_refused_however_they_are_spelled(address):
    assert address_allowed(ipaddress.ip_address(address)) is False


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"])
def test_public_addresses_are_allowed(address):
    assert address_allowed(ipaddress.ip_address(address)) is True


def test_the_connection_goes_to_the_address_that_was_checked(monkeypatch):
    hook = Receiver()
    lookups: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host, *args, **kwargs):
        if host == "hook.test":
            lookups.append(host)
            if len(lookups) > 1:  # a second lookup would be the rebinding attack's chance
                raise AssertionError("resolved twice")
            return real("127.0.0.1", *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(webhook_transport.socket, "getaddrinfo", rebinding)
    try:
        url = hook.url.replace("127.0.0.1", "hook.test")
        answer = webhook_post(
            url, content=b"{}", headers={}, deadline_seconds=5, allow_private=True
        )
    finally:
        hook.server.shutdown()
    assert answer.status_code == 200
    assert lookups == ["hook.test"]
    assert hook.received[0][0]["Host"].startswith("hook.test:")  # the name, not the address


def test_a_name_with_any_internal_address_is_refused(monkeypatch):
    def mixed(host, port, *args, **kwargs):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
        ]

    monkeypatch.setattr(webhook_transport.socket, "getaddrinfo", mixed)
    with pytest.raises(WebhookRefused, match="not a public address"):
        webhook_post("https://mixed.test/hook", content=b"{}", headers={}, deadline_seconds=5)


def test_proxy_variables_are_ignored(monkeypatch):
    hook = Receiver()
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    try:
        answer = webhook_post(
            hook.url, content=b"{}", headers={}, deadline_seconds=5, allow_private=True
        )
    finally:
        hook.server.shutdown()
    assert answer.status_code == 200
    assert len(hook.received) == 1


class _Server:
    """Answers every POST with `body_bytes` of body, `drip` seconds apart per byte."""

    def __init__(self, *, body_bytes: int, drip: float = 0.0) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Length", str(body_bytes))
                self.end_headers()
                try:
                    if drip:
                        for _ in range(body_bytes):
                            self.wfile.write(b"x")
                            self.wfile.flush()
                            time.sleep(drip)
                    else:
                        self.wfile.write(b"x" * body_bytes)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = loopback_server(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"


def test_a_receiver_dripping_bytes_is_cut_off_at_the_deadline():
    server = _Server(body_bytes=1000, drip=0.5)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        webhook_post(server.url, content=b"{}", headers={}, deadline_seconds=2, allow_private=True)
    assert time.monotonic() - started < 3
    server.server.shutdown()


def test_at_most_64_kb_of_an_answer_is_read():
    server = _Server(body_bytes=50 * 1024 * 1024)
    started = time.monotonic()
    answer = webhook_post(
        server.url, content=b"{}", headers={}, deadline_seconds=10, allow_private=True
    )
    assert (answer.status_code, len(answer.body)) == (200, 64 * 1024)
    assert time.monotonic() - started < 3
    server.server.shutdown()
