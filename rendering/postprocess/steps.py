"""`steps`: the ordered post-render steps of a job, parsed and checked at submit time.
Stored as the normalised JSON this returns; `pdf_steps` runs them in the worker."""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, InvalidInput
from rendering.postprocess.document_options import DocumentOptions
from rendering.postprocess.page_steps import (
    PAGE_STEP_TYPES,
    PageStepParser,
    parse_flatten,
    parse_metadata,
    parse_rotate,
    parse_split,
)

STEP_TYPES = ("merge", "stamp", "attach", "encrypt", "optimize", "sign", *PAGE_STEP_TYPES)
STAMP_LAYERS = ("over", "under")
PERMISSIONS = (
    "print",
    "print_highres",
    "modify",
    "extract",
    "annotate",
    "form",
    "assemble",
    "accessibility",
)
MAX_STEPS = 10
MAX_MERGE_SOURCES = 20
MAX_URL_LENGTH = 500
# What a read (the template API, the admin) shows for a sealed encrypt password; sent back
# in a template save it keeps the stored password (accounts.sealing.steps_restored).
SEALED_PLACEHOLDER = "[sealed]"
# Attachments travel in the submit body and the job row: a few megabytes at most.
MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024
# ...and so does a stamp's image or PDF.
MAX_STAMP_FILE_BYTES = MAX_ATTACHMENT_BYTES
# The first bytes of the images a stamp takes (PNG, JPEG, GIF, WebP's RIFF, TIFF).
_IMAGE_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF8",
    b"RIFF",
    b"II*\x00",
    b"MM\x00*",
)
# Both orders fail for a reason of their own; one message gives both.
SIGN_AND_ENCRYPT = (
    "steps: sign and encrypt cannot be combined, in either order: encrypting after signing "
    "rewrites the bytes the signature covers and breaks it, and a signature added after "
    "encrypting would need the document decrypted first. Use one of the two (sign, or "
    "encrypt), or sign here and encrypt the signed file elsewhere."
)
_FILENAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,99}$")
_MIME = re.compile(r"^[a-z]+/[a-z0-9.+-]{1,80}$")


def _fail(index: int, message: str, **kwargs: Any) -> ApplicationError:
    return InvalidInput(f"steps[{index}]: {message}", **kwargs)


def _fields(index: int, raw: dict[str, Any], allowed: set[str]) -> None:
    if unknown := sorted(set(raw) - allowed - {"type"}):
        raise _fail(
            index, f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(allowed))}."
        )


def _job_ids(index: int, value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(index, f"merge.{name} must be a list of job ids.")
    try:
        return [str(uuid.UUID(v)) for v in value]
    except ValueError:
        raise _fail(index, f"merge.{name} holds something that is not a job id.") from None


def _merge(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    _fields(index, raw, {"append", "prepend"})
    append = _job_ids(index, raw.get("append"), "append")
    prepend = _job_ids(index, raw.get("prepend"), "prepend")
    if not append and not prepend:
        raise _fail(index, "merge needs job ids in append or prepend.")
    if len(append) + len(prepend) > MAX_MERGE_SOURCES:
        raise _fail(index, f"merge takes at most {MAX_MERGE_SOURCES} jobs.")
    return {"type": "merge", "append": append, "prepend": prepend}


def _base64_file(index: int, encoded: Any, *, field: str, limit: int, what: str) -> bytes:
    """A file a step carries as base64, within `limit` bytes (checked on the text, before
    it is decoded): its bytes."""
    if not isinstance(encoded, str):
        raise _fail(index, f"{field} must be the file's bytes in base64.")
    if len(encoded) > limit * 4 // 3 + 4:
        raise _fail(
            index,
            f"the {what} is larger than {limit} bytes.",
            code=ErrorCode.TOO_LARGE,
            http_status=413,
        )
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise _fail(index, f"{field} is not valid base64.") from None


def _stamp_file(index: int, raw: dict[str, Any], name: str) -> str:
    """The base64 of a stamp's image or PDF, checked for size and kind by what its first
    bytes say (the worker reads the file itself, so no image or PDF is parsed here)."""
    encoded = raw.get(name)
    content = _base64_file(
        index, encoded, field=f"stamp.{name}", limit=MAX_STAMP_FILE_BYTES, what="stamp's file"
    )
    if name == "pdf_base64" and not content.startswith(b"%PDF-"):
        raise _fail(index, "stamp.pdf_base64 is not a PDF (it does not start with %PDF-).")
    if name == "image_base64" and not content.startswith(_IMAGE_SIGNATURES):
        raise _fail(index, "stamp.image_base64 must be a PNG, JPEG, GIF, WebP or TIFF image.")
    return str(encoded)  # a str already: _base64_file refuses anything else


def _stamp(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    _fields(index, raw, {"text", "image_base64", "pdf_base64", "layer"})
    sources = [name for name in ("text", "image_base64", "pdf_base64") if name in raw]
    if len(sources) > 1:
        raise _fail(index, "stamp takes one of text, image_base64 or pdf_base64.")
    step: dict[str, Any]
    if sources and sources[0] != "text":
        step = {"type": "stamp", sources[0]: _stamp_file(index, raw, sources[0])}
    else:
        text = raw.get("text")
        if not isinstance(text, str) or not 0 < len(text.strip()) <= 40:
            raise _fail(index, "stamp.text must be 1 to 40 characters.")
        step = {"type": "stamp", "text": re.sub(r"[\x00-\x1f\x7f]", " ", text).strip()}
    layer = raw.get("layer", "over")
    if layer not in STAMP_LAYERS:
        raise _fail(index, "stamp.layer must be over (a stamp) or under (a watermark).")
    if layer == "under":  # only then, so steps saved before layers normalise unchanged
        step["layer"] = "under"
    return step


def _attach(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    _fields(index, raw, {"filename", "content_base64", "mime_type", "description"})
    name = raw.get("filename")
    if not isinstance(name, str) or not _FILENAME.match(name):
        raise _fail(index, "attach.filename must be a plain file name (letters, digits, . _ -).")
    mime = raw.get("mime_type", "application/octet-stream")
    if not isinstance(mime, str) or not _MIME.match(mime):
        raise _fail(index, "attach.mime_type must be a MIME type such as text/csv.")
    description = raw.get("description", "")
    if not isinstance(description, str) or len(description) > 300:
        raise _fail(index, "attach.description must be a string of up to 300 characters.")
    encoded = raw.get("content_base64")
    _base64_file(
        index, encoded, field="attach.content_base64", limit=MAX_ATTACHMENT_BYTES, what="attachment"
    )
    return {
        "type": "attach",
        "filename": name,
        "content_base64": encoded,
        "mime_type": mime,
        "description": description,
    }


def _encrypt(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    _fields(index, raw, {"user_password", "owner_password", "permissions"})
    user, owner = raw.get("user_password", ""), raw.get("owner_password")
    if not isinstance(user, str) or len(user) > 127:
        raise _fail(index, "encrypt.user_password must be a string of up to 127 characters.")
    if not isinstance(owner, str) or not 6 <= len(owner) <= 127:
        raise _fail(index, "encrypt.owner_password must be 6 to 127 characters.")
    if SEALED_PLACEHOLDER in (user, owner):
        raise _fail(
            index,
            f"encrypt passwords read back as {SEALED_PLACEHOLDER!r}; send the passwords "
            "themselves (a template's save keeps the ones it has stored).",
        )
    if owner == user:
        raise _fail(index, "encrypt.owner_password must differ from user_password.")
    permissions = raw.get("permissions", ["print", "accessibility"])
    if not isinstance(permissions, list) or not set(permissions) <= set(PERMISSIONS):
        raise _fail(index, f"encrypt.permissions is a list of: {', '.join(PERMISSIONS)}.")
    return {
        "type": "encrypt",
        "user_password": user,
        "owner_password": owner,
        "permissions": sorted(set(permissions)),
    }


def _optimize(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    _fields(index, raw, {"image_dpi"})
    dpi = raw.get("image_dpi", 150)
    if not isinstance(dpi, int) or isinstance(dpi, bool) or not 50 <= dpi <= 600:
        raise _fail(index, "optimize.image_dpi must be a whole number from 50 to 600.")
    return {"type": "optimize", "image_dpi": dpi}


def _timestamp_url(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    """What the URL itself says; the outbound rules (https, public addresses) are the
    apps' (accounts.timestamping at submit and save, jobs.steps before connecting)."""
    url = raw.get("timestamp_url")
    if url is None:
        return {}
    parts = urlsplit(url) if isinstance(url, str) and len(url) <= MAX_URL_LENGTH else None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise _fail(
            index, "sign.timestamp_url must be the http(s) URL of an RFC 3161 timestamp authority."
        )
    if parts.username or parts.password or parts.fragment:
        raise _fail(index, "sign.timestamp_url may not carry credentials or a #fragment.")
    return {"timestamp_url": url}


def _sign(index: int, raw: dict[str, Any]) -> dict[str, Any]:
    _fields(index, raw, {"certificate", "visible", "timestamp_url"})
    try:
        certificate = str(uuid.UUID(str(raw.get("certificate"))))
    except ValueError:
        raise _fail(index, "sign.certificate must be the id of an uploaded certificate.") from None
    visible = raw.get("visible", False)
    if not isinstance(visible, bool):
        raise _fail(index, "sign.visible must be true or false.")
    # Only when given, so steps saved before timestamps existed normalise unchanged.
    return {
        "type": "sign",
        "certificate": certificate,
        "visible": visible,
        **_timestamp_url(index, raw),
    }


def _page_step(parser: PageStepParser) -> Callable[[int, dict[str, Any]], dict[str, Any]]:
    def parse(index: int, raw: dict[str, Any]) -> dict[str, Any]:
        return parser(raw, lambda message: _fail(index, message))

    return parse


_PARSERS = {
    "merge": _merge,
    "stamp": _stamp,
    "attach": _attach,
    "encrypt": _encrypt,
    "optimize": _optimize,
    "sign": _sign,
    "flatten": _page_step(parse_flatten),
    "rotate": _page_step(parse_rotate),
    "split": _page_step(parse_split),
    "metadata": _page_step(parse_metadata),
}


def parse_steps(raw: Any, document: DocumentOptions | None = None) -> list[dict[str, Any]]:
    """The normalised steps; InvalidInput (code invalid_data) naming the step and field
    otherwise. What the document's profile forbids (encryption in PDF/A, a file attached to PDF/A-2)
    is refused here, before anything runs."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvalidInput("steps must be a list of objects with a type.")
    if len(raw) > MAX_STEPS:
        raise InvalidInput(f"steps takes at most {MAX_STEPS} steps.")
    steps = []
    for index, step in enumerate(raw):
        kind = step.get("type") if isinstance(step, dict) else None
        if kind not in _PARSERS:
            raise _fail(index, f"type must be one of: {', '.join(STEP_TYPES)}.")
        steps.append(_PARSERS[kind](index, step))
    kinds = [step["type"] for step in steps]
    # Checked before the order: either order of the two is wrong, and only this says why.
    if "sign" in kinds and "encrypt" in kinds:
        raise InvalidInput(SIGN_AND_ENCRYPT)
    if "encrypt" in kinds[:-1]:
        raise InvalidInput("steps: encrypt must be the last step (nothing can change it after).")
    if "sign" in kinds[:-1] or kinds.count("sign") > 1:
        raise InvalidInput("steps: sign must be the one last step (a change after it breaks it).")
    profile = document.profile if document is not None else ""
    if profile.startswith("pdf/a-") and "encrypt" in kinds:
        raise InvalidInput(f"steps: {profile} forbids encryption; drop the encrypt step.")
    if "attach" in kinds and profile.startswith("pdf/a-2"):
        raise InvalidInput(
            f"steps: {profile} allows only PDF/A files as attachments; use pdf/a-3b to attach."
        )
    return steps


def merge_job_ids(steps: list[dict[str, Any]]) -> list[str]:
    """Every job whose PDF a merge step takes, in the order they are named."""
    ids: list[str] = []
    for step in steps:
        if step["type"] == "merge":
            ids += [*step["prepend"], *step["append"]]
    return list(dict.fromkeys(ids))


def sign_certificate_ids(steps: list[dict[str, Any]]) -> list[str]:
    return [step["certificate"] for step in steps if step["type"] == "sign"]


def timestamp_urls(steps: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(index, URL) of every sign step that asks a timestamp authority."""
    return [
        (index, step["timestamp_url"])
        for index, step in enumerate(steps)
        if step["type"] == "sign" and step.get("timestamp_url")
    ]
