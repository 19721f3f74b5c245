"""Running a job's steps on its rendered PDF with pikepdf (pyHanko for the signature), in
order, each read back: merge, stamp, attach, optimize, then encrypt or sign (last)."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pikepdf
from pikepdf.models.metadata import encode_pdf_date

from rendering.errors import RenderError, page_count_check
from rendering.postprocess.checks import Check
from rendering.postprocess.optimize import images_optimize
from rendering.postprocess.page_steps import (
    flatten_apply,
    metadata_apply,
    rotate_apply,
    split_apply,
)
from rendering.postprocess.signing import pdf_sign
from rendering.watermark import image_stamp_apply, pdf_stamp_apply, watermark_apply

if TYPE_CHECKING:
    from rendering.postprocess.timestamps import CheckedTimeStamper

StepCallback = Callable[[str], None]
_PERMISSION_FLAGS = {
    "print": "print_lowres",
    "print_highres": "print_highres",
    "modify": "modify_other",
    "extract": "extract",
    "annotate": "modify_annotation",
    "form": "modify_form",
    "assemble": "modify_assembly",
    "accessibility": "accessibility",
}


def _save(pdf: pikepdf.Pdf, **kwargs: Any) -> bytes:
    out = io.BytesIO()
    pdf.save(out, **kwargs)
    return out.getvalue()


def _merge(
    content: bytes, step: dict[str, Any], sources: Mapping[str, bytes]
) -> tuple[bytes, Check]:
    """Pages of the named jobs before and after this job's, in the order named."""
    try:
        before = [pikepdf.open(io.BytesIO(sources[job_id])) for job_id in step["prepend"]]
        after = [pikepdf.open(io.BytesIO(sources[job_id])) for job_id in step["append"]]
    except pikepdf.PdfError:
        raise RenderError("merge: a source job's file is not a readable PDF.") from None
    try:
        with pikepdf.open(io.BytesIO(content)) as pdf:
            own = len(pdf.pages)
            for source in reversed(before):
                for page in reversed(list(source.pages)):
                    pdf.pages.insert(0, page)
            for source in after:
                pdf.pages.extend(source.pages)
            merged = _save(pdf)
        expected = own + sum(len(source.pages) for source in before + after)
    finally:
        for source in before + after:
            source.close()
    with pikepdf.open(io.BytesIO(merged)) as pdf:
        total = len(pdf.pages)
    return merged, Check(
        "merge",
        total == expected,
        f"{len(before)} job(s) prepended, {len(after)} appended: {total} pages ({own} of this job)",
    )


def _attach(content: bytes, step: dict[str, Any]) -> tuple[bytes, Check]:
    data = base64.b64decode(step["content_base64"])
    name = step["filename"]
    with pikepdf.open(io.BytesIO(content)) as pdf:
        now = encode_pdf_date(datetime.now(UTC))  # PDF/A-3 asks for the file's dates
        spec = pikepdf.AttachedFileSpec(
            pdf,
            data,
            description=step["description"],
            filename=name,
            mime_type=step["mime_type"],
            creation_date=now,
            mod_date=now,
        )
        pdf.attachments[name] = spec
        attached = pdf.attachments[name]
        # PDF/A-3 names each attachment's relation to the document in the catalog's /AF.
        attached.obj.AFRelationship = pikepdf.Name.Supplement
        if "/AF" not in pdf.Root:
            pdf.Root.AF = pikepdf.Array()
        pdf.Root.AF.append(attached.obj)
        out = _save(pdf)
    with pikepdf.open(io.BytesIO(out)) as pdf:
        back = pdf.attachments.get(name)
        same = back is not None and back.get_file().read_bytes() == data
    return out, Check(
        "attach", same, f"{name}: {len(data)} bytes, read back {'equal' if same else 'different'}"
    )


def _encrypt(content: bytes, step: dict[str, Any]) -> tuple[bytes, Check]:
    allowed = {flag: False for flag in _PERMISSION_FLAGS.values()}
    allowed |= {_PERMISSION_FLAGS[name]: True for name in step["permissions"]}
    with pikepdf.open(io.BytesIO(content)) as pdf:
        out = _save(
            pdf,
            encryption=pikepdf.Encryption(
                owner=step["owner_password"],
                user=step["user_password"],
                R=6,  # AES-256
                allow=pikepdf.Permissions(**allowed),
            ),
        )
    with pikepdf.open(io.BytesIO(out), password=step["owner_password"]) as pdf:
        method = pdf.encryption
        stream = str(method.stream_method).rsplit(".", 1)[-1]
        aes256 = pdf.is_encrypted and method.R == 6 and stream == "aesv3"
        granted = {flag for flag in allowed if getattr(pdf.allow, flag)}
    needs_password = bool(step["user_password"])
    try:
        pikepdf.open(io.BytesIO(out)).close()
        opens_without = True
    except pikepdf.PasswordError:
        opens_without = False
    wanted = {flag for flag, on in allowed.items() if on}
    return out, Check(
        "encrypt",
        aes256 and opens_without != needs_password and granted >= wanted,
        f"AES-256 (R{method.R}, {stream}, {method.bits} bits); "
        f"{'a password opens it' if needs_password else 'opens without a password'}; "
        f"permissions: {', '.join(sorted(step['permissions'])) or 'none'}",
    )


def _stamp(content: bytes, step: dict[str, Any]) -> tuple[bytes, Check]:
    """Text, an image or a PDF's first page over (or under) every page."""
    over = step.get("layer", "over") == "over"
    where = "over" if over else "under the content of"
    if "image_base64" in step:
        image = base64.b64decode(step["image_base64"])
        stamped = image_stamp_apply(content, image, over=over)
        what = f"an image ({len(image)} bytes)"
    elif "pdf_base64" in step:
        stamp_pdf = base64.b64decode(step["pdf_base64"])
        stamped = pdf_stamp_apply(content, stamp_pdf, over=over)
        what = f"a PDF's first page ({len(stamp_pdf)} bytes)"
    else:
        stamped = watermark_apply(content, step["text"], over=over)
        what = repr(step["text"])
    return stamped, Check("stamp", True, f"{what} {where} every page")


@dataclass(frozen=True)
class StepsResult:
    content: bytes
    checks: list[Check]
    page_count: int
    # {valid, signer} of the sign step's signature, validated back; None without one.
    signature: dict[str, Any] | None = None


def _page_count(content: bytes) -> int:
    with pikepdf.open(io.BytesIO(content)) as pdf:
        return len(pdf.pages)


def steps_apply(
    content: bytes,
    steps: list[dict[str, Any]],
    *,
    sources: Mapping[str, bytes],
    max_pages: int,
    certificates: Mapping[str, tuple[bytes, str]] | None = None,
    timestampers: Mapping[str, CheckedTimeStamper] | None = None,
    on_step: StepCallback | None = None,
) -> StepsResult:
    """The PDF after every step, a check per step and its pages (counted before any
    encryption). `sources` holds the PDF of each job a merge names (the caller checked
    they are the tenant's own); a merge past `max_pages` is refused. `certificates` holds
    the unsealed PKCS#12 and password of each certificate a sign step names, and
    `timestampers` a timestamper, connected to its checked address, per `timestamp_url`."""
    checks: list[Check] = []
    pages = _page_count(content)
    signature = None
    for step in steps:
        kind = step["type"]
        if on_step is not None:
            on_step(kind)
        if kind == "merge":
            content, check = _merge(content, step, sources)
            pages = _page_count(content)
            page_count_check(pages, max_pages)
        elif kind == "stamp":
            content, check = _stamp(content, step)
        elif kind == "flatten":
            content, check = flatten_apply(content)
        elif kind == "rotate":
            content, check = rotate_apply(content, step)
        elif kind == "split":
            content, check = split_apply(content, step)
            pages = _page_count(content)
        elif kind == "metadata":
            content, check = metadata_apply(content, step)
        elif kind == "attach":
            content, check = _attach(content, step)
        elif kind == "optimize":
            content, check = images_optimize(content, image_dpi=step["image_dpi"])
        elif kind == "encrypt":
            content, check = _encrypt(content, step)
        elif kind == "sign":
            pkcs12_data, password = (certificates or {})[step["certificate"]]
            url = step.get("timestamp_url")
            signed = pdf_sign(
                content,
                pkcs12_data=pkcs12_data,
                password=password,
                visible=step["visible"],
                timestamper=(timestampers or {})[url] if url else None,
            )
            content, check = signed.content, signed.check
            signature = {"valid": signed.valid, "signer": signed.signer}
            if signed.timestamp is not None:
                signature["timestamp"] = signed.timestamp
        else:  # parse_steps admits no other type
            raise RenderError(f"Unknown step type {kind!r}.")
        checks.append(check)
    return StepsResult(content=content, checks=checks, page_count=pages, signature=signature)
