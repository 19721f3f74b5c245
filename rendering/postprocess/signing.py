"""PAdES signatures with pyHanko: a PKCS#12 checked when uploaded (password, validity),
a PDF signed with it (visible or invisible field, optionally timestamped by a TSA), the
signature and its timestamp validated back."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from rendering.error_codes import ErrorCode
from rendering.errors import RenderError
from rendering.postprocess.checks import Check

if TYPE_CHECKING:
    from pyhanko.stamp import TextStampStyle

    from rendering.postprocess.timestamps import CheckedTimeStamper

# pyHanko, pyhanko_certvalidator and the timestamp client (aiohttp) are imported by the
# functions that sign: every process imports this module (submit checks, the API's upload
# limit), and they cost ~0.4 s of each start. A worker imports them before its pool forks
# (rendering.preload).

FIELD_NAME = "Signature1"
MAX_PKCS12_BYTES = 64 * 1024


@cache
def stamp_style() -> TextStampStyle:
    """The visible box: its text alone. pyHanko's default style draws its own logo behind
    the text, over which the signer's name and time were hard to read."""
    from pyhanko.stamp import TextStampStyle

    return TextStampStyle(
        stamp_text="Digitally signed by %(signer)s\nTime: %(ts)s", background=None, border_width=1
    )


@dataclass(frozen=True)
class CertificateFacts:
    subject: str
    not_after: datetime


def pkcs12_inspect(data: bytes, password: str, *, now: datetime | None = None) -> CertificateFacts:
    """The certificate's subject and expiry; RenderError (400) for a wrong password, a file
    that is not PKCS#12, one without a key, or a certificate out of its validity."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    if len(data) > MAX_PKCS12_BYTES:
        raise RenderError(f"The PKCS#12 file is larger than {MAX_PKCS12_BYTES} bytes.")
    try:
        key, cert, _ = pkcs12.load_key_and_certificates(data, password.encode("utf-8"))
    except ValueError:
        raise RenderError(
            "The PKCS#12 file could not be opened: the password is wrong or it is not a "
            "PKCS#12 (.p12/.pfx) file.",
            code=ErrorCode.INVALID_CERTIFICATE,
        ) from None
    if key is None or cert is None:
        raise RenderError("The PKCS#12 file holds no private key and certificate.")
    moment = now or datetime.now(UTC)
    if cert.not_valid_after_utc <= moment:
        raise RenderError(
            f"The certificate expired on {cert.not_valid_after_utc:%Y-%m-%d}; upload a valid one.",
            code=ErrorCode.CERTIFICATE_EXPIRED,
        )
    if cert.not_valid_before_utc > moment:
        raise RenderError(
            f"The certificate is valid only from {cert.not_valid_before_utc:%Y-%m-%d}."
        )
    return CertificateFacts(
        subject=cert.subject.rfc4514_string(), not_after=cert.not_valid_after_utc
    )


@dataclass(frozen=True)
class Signed:
    content: bytes
    valid: bool
    signer: str
    check: Check
    # {time, authority, valid} of the signature's RFC 3161 timestamp; None without a TSA.
    timestamp: dict[str, Any] | None = None


def pdf_sign(
    content: bytes,
    *,
    pkcs12_data: bytes,
    password: str,
    visible: bool,
    timestamper: CheckedTimeStamper | None = None,
) -> Signed:
    """The PDF with a PAdES signature appended as an incremental update (B-B, or B-T with
    a timestamper), validated back by pyHanko against the signer's own certificate (the
    tenant's trust anchor) and the timestamp against the TSA's own certificate (which
    TSA a reader trusts is the reader's decision, as with the signer)."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign import fields, signers
    from pyhanko.sign.timestamps import TimestampRequestError
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    from rendering.postprocess.timestamps import timestamp_request_failed

    signer = signers.SimpleSigner.load_pkcs12_data(
        pkcs12_data, other_certs=[], passphrase=password.encode("utf-8")
    )
    if signer is None:
        raise RenderError("The signing certificate could not be loaded.")
    writer = IncrementalPdfFileWriter(io.BytesIO(content))
    box = (36, 36, 236, 96) if visible else None
    fields.append_signature_field(
        writer, fields.SigFieldSpec(sig_field_name=FIELD_NAME, on_page=0, box=box)
    )
    meta = signers.PdfSignatureMetadata(
        field_name=FIELD_NAME, subfilter=fields.SigSeedSubFilter.PADES
    )
    out = io.BytesIO()
    try:
        signers.PdfSigner(
            meta, signer=signer, timestamper=timestamper, stamp_style=stamp_style()
        ).sign_pdf(writer, output=out)
    except TimestampRequestError as exc:  # the TSA refused, or answered another nonce
        assert timestamper is not None  # noqa: S101 - only a timestamper raises it
        raise timestamp_request_failed(timestamper.url, exc) from None
    signed = out.getvalue()
    reader = PdfFileReader(io.BytesIO(signed))
    embedded = reader.embedded_signatures[0]
    tsa_context = ValidationContext(trust_roots=timestamper.certificates) if timestamper else None
    status = validate_pdf_signature(
        embedded,
        ValidationContext(trust_roots=[signer.signing_cert]),
        ts_validation_context=tsa_context,
    )
    name = signer.signing_cert.subject.human_friendly
    valid = bool(status.bottom_line)
    detail = (
        f"PAdES signature by {name}: intact={status.intact}, valid={status.valid}, "
        f"{'visible' if visible else 'invisible'} field {FIELD_NAME}"
    )
    timestamp = None
    if timestamper is not None:
        token = status.timestamp_validity
        stamped = bool(token and token.intact and token.valid and token.trusted)
        timestamp = {
            "time": token.timestamp.isoformat() if token else None,
            "authority": token.signing_cert.subject.human_friendly if token else None,
            "valid": stamped,
        }
        valid = valid and stamped
        detail += f"; timestamp {timestamp['time']} by {timestamp['authority']}, valid={stamped}"
    return Signed(
        content=signed,
        valid=valid,
        signer=name,
        check=Check("signature", valid, detail),
        timestamp=timestamp,
    )
