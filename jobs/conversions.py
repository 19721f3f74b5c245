"""Office conversions as jobs (POST /api/v1/convert and the Gotenberg LibreOffice route):
uploaded files, checked, become one job of the `office` engine; the worker converts them
with LibreOffice and merges them in order (rendering.office)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accounts.models import ApiKey
from jobs import services
from jobs.models import PdfJob
from rendering.errors import InvalidInput
from rendering.office import OFFICE_ENGINE, office_check, office_source
from reports.limits import limits_from_settings
from workspaces.models import Workspace


def conversion_options(
    options: Mapping[str, Any] | None,
    *,
    files: Sequence[tuple[str, bytes]],
    page_ranges: str = "",
    landscape: bool | None = None,
    profile: str = "",
) -> dict[str, Any]:
    """The job's options: those sent, the form's shorthands over them, and the first
    file's name as the PDF's unless one was chosen."""
    chosen = dict(options or {})
    if page_ranges:
        chosen["page_ranges"] = page_ranges
    if landscape is not None:
        chosen["orientation"] = "landscape" if landscape else "portrait"
    if profile:
        chosen["pdf"] = {**chosen.get("pdf", {}), "profile": profile}
    if "filename" not in chosen and files:
        chosen["filename"] = files[0][0].rsplit(".", 1)[0] + ".pdf"
    return chosen


def conversion_create(
    *,
    owner: Any,
    workspace: Workspace,
    files: Sequence[tuple[str, bytes]],
    options: Mapping[str, Any] | None = None,
    api_key: ApiKey | None = None,
    callback_url: str = "",
    idempotency_key: str = "",
) -> tuple[PdfJob, bool]:
    """Queue the conversion of `files` (name, content), merged in order, with job_create's
    validation, quotas and idempotency; InvalidInput for a file refused."""
    if not files:
        raise InvalidInput("Send at least one file (multipart field `file`).")
    office_check(files, limits=limits_from_settings())
    return services.job_create(
        owner=owner,
        workspace=workspace,
        api_key=api_key,
        html_template=office_source(files),
        engine=OFFICE_ENGINE,
        data={},
        options=dict(options or {}),
        callback_url=callback_url,
        idempotency_key=idempotency_key,
    )
