"""Template thumbnails: the first page rendered with the sample data, cached on disk."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from django.conf import settings

from rendering.errors import RenderError
from rendering.options import parse_options
from reports.models import ReportTemplate
from reports.preview import template_preview_png

logger = logging.getLogger(__name__)
THUMBNAIL_WIDTH = 360


def thumbnail_dir() -> Path:
    return Path(settings.VAR_DIR) / "thumbnails"


def thumbnail_key(template: ReportTemplate) -> str:
    """Changes whenever anything that shows in the picture changes, so no invalidation."""
    material = json.dumps(
        [template.engine, template.html, template.css, template.sample_data, THUMBNAIL_WIDTH],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def template_thumbnail(*, template: ReportTemplate) -> bytes | None:
    """PNG of the template's first page with its sample data; None if it cannot render.

    Rendered once per template version: later calls read the cached file."""
    path = thumbnail_dir() / f"{thumbnail_key(template)}.png"
    if path.exists():
        return path.read_bytes()
    try:
        # Laid out only as far as the first page, under the preview time limit: a
        # 50-page sample costs no more than a one-page one.
        png = template_preview_png(
            engine=template.engine,
            source=template.html,
            css=template.css,
            data=template.sample_data if isinstance(template.sample_data, dict) else {},
            schema=template.schema or {},
            options=parse_options({}),
            width=THUMBNAIL_WIDTH,
        )
    except RenderError as exc:
        logger.info("no thumbnail for template %s: %s", template.slug, exc.message)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write then rename: a concurrent request never reads half a file.
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
        handle.write(png)
    os.replace(handle.name, path)
    return png
