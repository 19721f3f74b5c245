"""Template thumbnails: the first page rendered with the sample data, cached in the report
store (S3 in production), so every web host shares each one."""

from __future__ import annotations

import hashlib
import json
import logging

from django.core.files.base import ContentFile
from django.core.files.storage import storages

from rendering.errors import ApplicationError
from reports.models import ReportTemplate
from reports.preview_queue import PreviewWork, preview_request

logger = logging.getLogger(__name__)
THUMBNAIL_WIDTH = 360


THUMBNAIL_PREFIX = "thumbnails/"


def thumbnail_key(template: ReportTemplate, renderer: str | None = None) -> str:
    """Changes whenever anything that shows in the picture changes, so no invalidation."""
    material = json.dumps(
        [
            template.engine,
            renderer or template.renderer,
            template.html,
            template.css,
            template.helpers,
            template.sample_data,
            THUMBNAIL_WIDTH,
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def template_thumbnail(*, template: ReportTemplate, renderer: str | None = None) -> bytes | None:
    """PNG of the template's first page with its sample data (laid out by `renderer`, the
    template's own by default); None if it cannot render.

    Rendered once per template version: later calls read the cached file."""
    name = f"{THUMBNAIL_PREFIX}{thumbnail_key(template, renderer)}.png"
    store = storages["reports"]
    if store.exists(name):
        with store.open(name, "rb") as handle:
            return bytes(handle.read())
    try:
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
        )
        png = preview_request(work, schema=template.schema or {})  # on the previews queue
    except ApplicationError as exc:
        logger.info("no thumbnail for template %s: %s", template.slug, exc.message)
        return None
    # One PUT on S3 (readers see all of it or nothing); the same bytes if two hosts race.
    store.save(name, ContentFile(png))
    return png
