"""A real RFC 3161 timestamp authority on loopback: pyHanko's DummyTimeStamper behind a
tiny HTTP server speaking application/timestamp-query / timestamp-reply."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from asn1crypto import keys, tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps import DummyTimeStamper

from tests.loopback import loopback_server

TSA_NAME = "Loopback TSA"


def make_tsa() -> DummyTimeStamper:
    """A self-signed TSA certificate (critical time-stamping EKU, as RFC 3161 asks)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, TSA_NAME)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .sign(key, hashes.SHA256())
    )
    der_key = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER)),
        tsa_key=keys.PrivateKeyInfo.load(der_key),
    )


class TimestampServer:
    """Answers each POST with a timestamp reply; `answer` overrides it with a fixed
    (content type, body), `status` and `headers` with others, to play a server that
    answers garbage, an error or a redirect. `chunked` = (chunk, count) answers that many
    copies of `chunk` with Transfer-Encoding: chunked and no length, counting in
    `chunked_sent` the bytes it could send before the client hung up."""

    def __init__(self) -> None:
        self.stamper = make_tsa()
        self.answer: tuple[str, bytes] | None = None
        self.status = 200
        self.headers: dict[str, str] = {}
        self.requests = 0
        self.chunked: tuple[bytes, int] | None = None
        self.chunked_sent = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                server.requests += 1
                if server.chunked is not None:
                    self._send_chunked(*server.chunked)
                    return
                if server.answer is not None:
                    content_type, reply = server.answer
                else:
                    request = tsp.TimeStampReq.load(body)
                    content_type = "application/timestamp-reply"
                    reply = server.stamper.request_tsa_response(request).dump()
                self.send_response(server.status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(reply)))
                self.send_header("Connection", "close")
                for name, value in server.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply)
                self.close_connection = True

            def _send_chunked(self, chunk: bytes, count: int) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for _ in range(count):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        server.chunked_sent += len(chunk)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass  # the client stopped reading and hung up
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.http = loopback_server(Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}/tsa"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@contextmanager
def timestamp_server() -> Iterator[TimestampServer]:
    server = TimestampServer()
    try:
        yield server
    finally:
        server.close()
