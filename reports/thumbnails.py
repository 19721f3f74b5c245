"""Template thumbnails: the first page rendered with the sample data, cached in the report
store (S3 in production, so every web host shares each one); a failure is cached too, on
the host's disk for THUMBNAIL_FAILURE_TTL_SECONDS, so a template that does not render (or
renders too slowly) costs the previews queue one try per host, not one per visit."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages

from rendering.errors import ApplicationError
from reports.models import ReportTemplate
from reports.partials import template_partials_sources
from reports.preview_queue import PreviewsBusy, PreviewWork, preview_request

logger = logging.getLogger(__name__)
THUMBNAIL_WIDTH = 360


THUMBNAIL_PREFIX = "thumbnails/"  # in the report store


def thumbnail_dir() -> Path:
    """Where this host keeps its failure markers."""
    return Path(settings.VAR_DIR) / "thumbnails"


def _partials(template: ReportTemplate) -> tuple[dict[str, str], ApplicationError | None]:
    """The live sources of what the template includes, or why they cannot be found."""
    try:
        sources = template_partials_sources(
            workspace=template.workspace_id,
            engine=template.engine,
            html=template.html,
            slug=template.slug,
        )
    except ApplicationError as exc:
        return {}, exc
    return sources, None


def thumbnail_key(
    template: ReportTemplate,
    renderer: str | None = None,
    partials: dict[str, str] | None = None,
) -> str:
    """Changes whenever anything that shows in the picture changes, so no invalidation:
    a publish of a template it includes (a header, a footer) changes it too."""
    if partials is None:
        partials, _ = _partials(template)
    material = json.dumps(
        [
            template.engine,
            renderer or template.renderer,
            template.html,
            template.css,
            template.helpers,
            template.sample_data,
            THUMBNAIL_WIDTH,
            sorted(partials.items()),
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _write_atomically(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write then rename: a concurrent request never reads half a file.
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
        handle.write(content)
    os.replace(handle.name, path)


def _failed_recently(path: Path) -> bool:
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    return age < settings.THUMBNAIL_FAILURE_TTL_SECONDS


def template_thumbnail(
    *, template: ReportTemplate, tenant_id: int, renderer: str | None = None
) -> bytes | None:
    """PNG of the template's first page with its sample data (laid out by `renderer`, the
    template's own by default); None if it cannot render (or failed to lately).
    PreviewsBusy (429) while `tenant_id` has its share of the previews queue.

    Rendered once per template version: later calls read the cached file."""
    partials, missing = _partials(template)
    key = thumbnail_key(template, renderer, partials)
    name = f"{THUMBNAIL_PREFIX}{key}.png"
    store = storages["reports"]
    if store.exists(name):
        with store.open(name, "rb") as handle:
            return bytes(handle.read())
    failed = thumbnail_dir() / f"{key}.failed"
    if _failed_recently(failed):
        return None
    try:
        if missing is not None:
            raise missing
        # Laid out only as far as the first page, under the preview time limit: a
        # 50-page sample costs no more than a one-page one.
        work = PreviewWork(
            engine=template.engine,
            source=template.html,
            css=template.css,
            data=template.sample_data if isinstance(template.sample_data, dict) else {},
            options={},
            width=THUMBNAIL_WIDTH,
            renderer=renderer or template.renderer,
            helpers=template.helpers,
            partials=partials,
        )
        # On the previews queue, within the tenant's share of it.
        png = preview_request(work, schema=template.schema or {}, tenant_id=tenant_id)
    except PreviewsBusy:
        raise  # not the template's fault: try again later, nothing cached
    except ApplicationError as exc:  # bad template, data, or too slow to lay out
        logger.info("no thumbnail for template %s: %s", template.slug, exc.message)
        _write_atomically(failed, exc.message.encode("utf-8"))
        return None
    # One PUT on S3 (readers see all of it or nothing); the same bytes if two hosts race.
    store.save(name, ContentFile(png))
    return png
