"""The sign step's RFC 3161 timestamp against a real loopback TSA (pyHanko's
DummyTimeStamper over HTTP): the token read back and validated by pyHanko, and each way a
TSA can fail sorted into retry (unreachable) or a permanent error with a message."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pikepdf
import pytest
from asn1crypto import x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from rendering.error_codes import ErrorCode
from rendering.errors import RenderError
from rendering.postprocess.signing import pdf_sign
from rendering.postprocess.steps import parse_steps
from rendering.postprocess.timestamps import CheckedTimeStamper, TimestampUnavailable
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.tsa_server import TSA_NAME, TimestampServer, timestamp_server

CERTIFICATE = "11111111-1111-4111-8111-111111111111"


@pytest.fixture(scope="module")
def tsa() -> Iterator[TimestampServer]:
    with timestamp_server() as server:
        yield server


@pytest.fixture(autouse=True)
def _honest(tsa):
    tsa.answer, tsa.status, tsa.headers = None, 200, {}


@pytest.fixture(scope="module")
def pkcs12() -> bytes:
    return make_pkcs12()


def _blank() -> bytes:
    out = io.BytesIO()
    with pikepdf.new() as pdf:
        pdf.add_blank_page()
        pdf.save(out)
    return out.getvalue()


def _sign(url: str, pkcs12: bytes):
    stamper = CheckedTimeStamper(url, address="127.0.0.1")
    return pdf_sign(
        _blank(), pkcs12_data=pkcs12, password="p12-pass", visible=False, timestamper=stamper
    )


def test_the_signature_carries_a_timestamp_token_pyhanko_validates(tsa, pkcs12):
    signed = _sign(tsa.url, pkcs12)
    assert signed.valid
    assert signed.timestamp is not None
    assert signed.timestamp["valid"] is True
    assert signed.timestamp["authority"] == f"Common Name: {TSA_NAME}"
    (embedded,) = PdfFileReader(io.BytesIO(signed.content)).embedded_signatures
    tsa_cert: x509.Certificate = tsa.stamper.tsa_cert
    status = validate_pdf_signature(
        embedded,
        ValidationContext(trust_roots=[embedded.signer_cert]),
        ts_validation_context=ValidationContext(trust_roots=[tsa_cert]),
    )
    token = status.timestamp_validity
    assert token is not None
    assert token.intact
    assert token.valid
    assert token.trusted
    assert token.signing_cert.sha256 == tsa_cert.sha256
    assert token.timestamp.isoformat() == signed.timestamp["time"]
    assert status.bottom_line


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (("application/timestamp-reply", b"garbage!"), "not an RFC 3161 timestamp reply"),
        (("application/timestamp-reply", b"\x30\x03\x02\x01\x05"), "not an RFC 3161"),
        (("text/html", b"<html>login</html>"), "did not answer with application/timestamp-reply"),
    ],
)
def test_a_tsa_answering_garbage_is_a_permanent_error_that_says_so(tsa, pkcs12, answer, reason):
    tsa.answer = answer
    with pytest.raises(RenderError) as caught:
        _sign(tsa.url, pkcs12)
    assert caught.value.code == ErrorCode.TIMESTAMP_FAILED
    assert reason in caught.value.message
    assert caught.value.message.startswith(f"sign.timestamp_url {tsa.url}")


@pytest.mark.parametrize(
    ("status", "headers", "reason"),
    [
        (302, {"Location": "http://10.0.0.1/tsa"}, "answered with a redirect (not followed)"),
        (403, {}, "answered HTTP 403"),
    ],
)
def test_a_redirect_or_a_refusal_is_permanent(tsa, pkcs12, status, headers, reason):
    tsa.status, tsa.headers = status, headers
    with pytest.raises(RenderError, match=re.escape(reason)):
        _sign(tsa.url, pkcs12)


def test_an_oversized_answer_is_not_read(tsa, pkcs12):
    tsa.answer = ("application/timestamp-reply", b"\x00" * (300 * 1024))
    with pytest.raises(RenderError, match="307200 bytes; a timestamp reply is a few KB"):
        _sign(tsa.url, pkcs12)


def test_a_tsa_answering_503_is_transient(tsa, pkcs12):
    tsa.status = 503
    with pytest.raises(TimestampUnavailable, match="HTTP 503"):
        _sign(tsa.url, pkcs12)


def test_an_unreachable_tsa_is_transient_not_a_render_error(pkcs12):
    with timestamp_server() as gone:
        url = gone.url
    with pytest.raises(TimestampUnavailable) as caught:
        _sign(url, pkcs12)
    assert not isinstance(caught.value, RenderError)  # so the worker retries the job


def test_the_timestamper_connects_only_to_the_checked_address(tsa, pkcs12):
    # The URL names a host that does not resolve; the pinned address is used instead.
    port = tsa.http.server_port
    signed = _sign(f"http://tsa.invalid:{port}/tsa", pkcs12)
    assert signed.timestamp["valid"] is True


@pytest.mark.parametrize(
    "url",
    ["ftp://tsa.example/", "not a url", "https://", 42, "https://user:pw@tsa.example/"],
)
def test_a_bad_timestamp_url_is_refused_naming_the_field(url):
    step = {"type": "sign", "certificate": CERTIFICATE, "timestamp_url": url}
    with pytest.raises(RenderError) as caught:
        parse_steps([step])
    assert caught.value.message.startswith("steps[0]: sign.timestamp_url")
    assert caught.value.http_status == 400


def test_a_sign_step_without_a_timestamp_url_normalises_as_before():
    (step,) = parse_steps([{"type": "sign", "certificate": CERTIFICATE}])
    assert step == {"type": "sign", "certificate": CERTIFICATE, "visible": False}


def test_a_chunked_answer_is_read_only_up_to_the_cap(tsa, pkcs12):
    """Issue 42, Low: a reply without a length (chunked) used to be read whole: 64 MB
    here. It is read a piece at a time and refused once past MAX_REPLY_BYTES."""
    tsa.chunked = (b"\x00" * 65536, 1024)  # 64 MB, no Content-Length
    tsa.chunked_sent = 0
    try:
        with pytest.raises(RenderError, match="longer than 262144 bytes") as caught:
            _sign(tsa.url, pkcs12)
    finally:
        tsa.chunked = None
    assert caught.value.code == ErrorCode.TIMESTAMP_FAILED
    # The server could not hand over more than the sockets' buffers hold past the cap.
    assert tsa.chunked_sent < 32 * 1024 * 1024
