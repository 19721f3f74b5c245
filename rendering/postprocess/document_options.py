"""`options.pdf`: the output profile, document metadata and e-invoice of a job, parsed once."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, InvalidInput
from rendering.option_objects import option_object_check
from rendering.text_checks import clean_text

# WeasyPrint's own variant names. Combinations ("pdf/a-3b+ua-1") are not offered:
# WeasyPrint writes one identification schema per document, so a combined claim would be
# a claim nobody checked. "pdf/a-2a"/"pdf/a-3a" are the tagged (accessible) archival levels.
PROFILES = ("pdf/a-2b", "pdf/a-3b", "pdf/a-2u", "pdf/a-3u", "pdf/a-2a", "pdf/a-3a", "pdf/ua-1")
# Only WeasyPrint writes the identification, output intent and (for UA) tags itself;
# xhtml2pdf cannot, and Chromium's tagged PDFs claim no conformance level.
PROFILE_RENDERERS = ("weasyprint",)
E_INVOICE_PROFILES = ("minimum", "basicwl", "basic", "en16931", "extended")
_KNOWN = {"profile", "metadata", "e_invoice"}
_METADATA_LIMITS = {"title": 300, "author": 200, "subject": 300, "lang": 35}
_LANG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
MAX_E_INVOICE_BYTES = 2_000_000


@dataclass(frozen=True)
class DocumentMetadata:
    title: str = ""
    author: str = ""
    subject: str = ""
    keywords: tuple[str, ...] = ()
    lang: str = ""


@dataclass(frozen=True)
class EInvoice:
    xml: str
    profile: str


@dataclass(frozen=True)
class DocumentOptions:
    profile: str = ""
    metadata: DocumentMetadata = field(default_factory=DocumentMetadata)
    e_invoice: EInvoice | None = None

    @property
    def is_pdfa(self) -> bool:
        return self.profile.startswith("pdf/a-")

    @property
    def is_ua(self) -> bool:
        # PDF/A level "a" is tagged too, but only pdf/ua-1 claims PDF/UA in its XMP.
        return self.profile == "pdf/ua-1"

    @property
    def is_tagged(self) -> bool:
        return self.is_ua or self.profile.endswith("a")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.profile:
            out["profile"] = self.profile
        meta = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.metadata).items()}
        if meta := {k: v for k, v in meta.items() if v}:
            out["metadata"] = meta
        if self.e_invoice is not None:
            out["e_invoice"] = {"xml": self.e_invoice.xml, "profile": self.e_invoice.profile}
        return out


def _text(name: str, value: Any, limit: int) -> str:
    return clean_text(f"options.pdf.metadata.{name}", value, limit)


def _metadata(raw: Any) -> DocumentMetadata:
    if raw is None:
        return DocumentMetadata()
    known = set(_METADATA_LIMITS) | {"keywords"}
    path = "options.pdf.metadata"
    option_object_check(raw, path=path, known=known, what=f"{path} field(s)")
    texts = {k: _text(k, raw[k], n) for k, n in _METADATA_LIMITS.items() if raw.get(k) is not None}
    if texts.get("lang") and not _LANG.match(texts["lang"]):
        raise InvalidInput(
            f"options.pdf.metadata.lang {texts['lang']!r} is not a BCP 47 language tag "
            "(e.g. 'en', 'de-CH')."
        )
    keywords = raw.get("keywords") or []
    if isinstance(keywords, str):
        keywords = [part for part in (k.strip() for k in keywords.split(",")) if part]
    if not isinstance(keywords, list) or len(keywords) > 50:
        raise InvalidInput("options.pdf.metadata.keywords must be a list of up to 50 strings.")
    cleaned = tuple(_text("keywords", k, 100) for k in keywords)
    return DocumentMetadata(keywords=tuple(k for k in cleaned if k), **texts)


def _e_invoice(raw: Any, profile: str) -> tuple[EInvoice, str]:
    if not isinstance(raw, dict) or set(raw) - {"xml", "profile"}:
        raise InvalidInput(
            'options.pdf.e_invoice must be {"xml": "<rsm:…>", "profile": "en16931"}.'
        )
    xml, level = raw.get("xml"), raw.get("profile", "en16931")
    if not isinstance(xml, str) or not xml.strip():
        raise InvalidInput("options.pdf.e_invoice.xml must be the invoice's CII XML as a string.")
    if len(xml.encode("utf-8")) > MAX_E_INVOICE_BYTES:
        raise ApplicationError(
            f"options.pdf.e_invoice.xml is larger than {MAX_E_INVOICE_BYTES} bytes.",
            code=ErrorCode.E_INVOICE_TOO_LARGE,
            http_status=413,
        )
    if not isinstance(level, str) or level.lower() not in E_INVOICE_PROFILES:
        raise InvalidInput(
            f"options.pdf.e_invoice.profile must be one of: {', '.join(E_INVOICE_PROFILES)}."
        )
    # Factur-X is PDF/A-3 with conformance B: that is what the library's XMP claims.
    if profile not in ("", "pdf/a-3b"):
        raise InvalidInput(
            f"An e-invoice is a PDF/A-3b document; options.pdf.profile {profile!r} cannot "
            "carry one (leave it out or use 'pdf/a-3b')."
        )
    return EInvoice(xml=xml, profile=level.lower()), "pdf/a-3b"


def parse_document_options(raw: Any) -> DocumentOptions | None:
    """Validated `options.pdf`, or None when absent; RenderError naming the bad field."""
    if raw is None:
        return None
    option_object_check(raw, path="options.pdf", known=_KNOWN, what="options.pdf field(s)")
    profile = raw.get("profile") or ""
    if not isinstance(profile, str) or (profile and profile.lower() not in PROFILES):
        raise InvalidInput(
            f"options.pdf.profile {profile!r} is not offered; use one of: {', '.join(PROFILES)}.",
            code=ErrorCode.UNKNOWN_PROFILE,
        )
    profile = profile.lower()
    e_invoice = None
    if raw.get("e_invoice") is not None:
        e_invoice, profile = _e_invoice(raw["e_invoice"], profile)
    return DocumentOptions(
        profile=profile, metadata=_metadata(raw.get("metadata")), e_invoice=e_invoice
    )


def document_renderer_check(document: DocumentOptions | None, renderer: str) -> None:
    """A profile the renderer cannot produce is refused at submit, naming those that can."""
    if document is None or not document.profile or renderer in PROFILE_RENDERERS:
        return
    raise InvalidInput(
        f"The {renderer} renderer cannot produce {document.profile}; use renderer "
        f"{' or '.join(repr(name) for name in PROFILE_RENDERERS)} for options.pdf.profile.",
        code=ErrorCode.PROFILE_UNSUPPORTED,
    )
