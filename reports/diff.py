"""The visual diff of two template versions: both rendered with the same data on the
previews queue, compared page by page (changed pixels and an overlay marking them), plus
the unified diff of their sources. The page images are kept in Redis for a while and
served by an authenticated view, so no host keeps files another one needs."""

from __future__ import annotations

import difflib
import io
import json
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from PIL import Image, ImageChops

from core.errors import NotFound
from rendering.errors import InvalidInput
from rendering.options import parse_options
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.partials import template_partials_sources
from reports.preview import PREVIEW_MAX_PAGES
from reports.preview_queue import PreviewWork, preview_request_pages, previews_redis

# How many pages a diff compares, and how wide it renders them: enough to review a change,
# bounded like a preview so a 50-page report costs the previews queue what a preview does.
DIFF_MAX_PAGES = PREVIEW_MAX_PAGES
DIFF_WIDTH = 700
# How long the page images stay fetchable after the diff that made them.
DIFF_IMAGE_SECONDS = 600
# A channel differing by less than this is anti-aliasing noise, not a change.
_NOISE = 16
_MARK = (230, 30, 60)

# The files of a template's folder (client/ templates as code), in the order diffs show them.
SOURCE_FILES = (
    ("template.html", "html"),
    ("style.css", "css"),
    ("helpers.js", "helpers"),
    ("schema.json", "schema"),
    ("sample.json", "sample_data"),
)


@dataclass(frozen=True)
class PageDiff:
    page: int  # 1-based
    changed_pixels: int
    before: str | None  # image keys (diff_image_get); None: the page is missing there
    after: str | None
    overlay: str


def version_resolve(
    *, template: ReportTemplate, ref: str | None, default: str
) -> ReportTemplateVersion:
    """A version by number, or `published` / `draft`; NotFound naming what is missing."""
    ref = (ref or default).strip().lower()
    if ref == "draft":
        if template.draft_version is None:
            raise NotFound(f"Template {template.slug!r} has no draft.")
        return template.draft_version
    if ref == "published":
        version = template.published_version or template.latest_version
        if version is None:
            raise NotFound(f"Template {template.slug!r} has no version yet.")
        return version
    if not ref.isdigit():
        raise InvalidInput(f"{ref!r} is not a version: send a number, 'draft' or 'published'.")
    found = template.versions.filter(number=int(ref)).first()
    if found is None:
        raise NotFound(f"Template {template.slug!r} has no version {ref}.")
    return found


def _source_text(version: ReportTemplateVersion, field: str) -> str:
    value = getattr(version, field)
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, sort_keys=True) + "\n" if value else ""


def source_diff(before: ReportTemplateVersion, after: ReportTemplateVersion) -> str:
    """The unified diff of every source file, with the folder layout's names."""
    chunks: list[str] = []
    for name, field in SOURCE_FILES:
        old = _source_text(before, field).splitlines(keepends=True)
        new = _source_text(after, field).splitlines(keepends=True)
        for line in difflib.unified_diff(
            old, new, fromfile=f"v{before.number}/{name}", tofile=f"v{after.number}/{name}"
        ):
            chunks.append(line if line.endswith("\n") else line + "\n")
    return "".join(chunks)


def _open(png: bytes | None, size: tuple[int, int]) -> Image.Image:
    canvas = Image.new("RGB", size, "white")
    if png is not None:
        canvas.paste(Image.open(io.BytesIO(png)).convert("RGB"), (0, 0))
    return canvas


def page_compare(before: bytes | None, after: bytes | None) -> tuple[int, bytes]:
    """(changed pixels, overlay PNG): the newer page faded, its changed pixels marked. A
    page missing on one side compares with a blank page of the other's size."""
    sizes = [Image.open(io.BytesIO(png)).size for png in (before, after) if png is not None]
    size = (max(w for w, _ in sizes), max(h for _, h in sizes))
    old, new = _open(before, size), _open(after, size)
    difference = ImageChops.difference(old, new).convert("L")
    changed = difference.point(lambda value: 255 if value > _NOISE else 0)
    count = changed.histogram()[255]
    overlay = Image.blend(Image.new("RGB", size, "white"), new, 0.35)
    overlay.paste(Image.new("RGB", size, _MARK), (0, 0), changed)
    out = io.BytesIO()
    overlay.save(out, format="PNG", optimize=True)
    return count, out.getvalue()


def _image_key(workspace_id: int | None, token: str) -> str:
    return f"{settings.LIMITS_KEY_PREFIX}:diff:{workspace_id}:{token}"


def diff_image_store(*, workspace_id: int | None, png: bytes) -> str:
    token = secrets.token_urlsafe(16)
    previews_redis().set(_image_key(workspace_id, token), png, ex=DIFF_IMAGE_SECONDS)
    return token


def diff_image_get(*, workspace_id: int | None, token: str) -> bytes:
    """A stored page image of this workspace's diffs; NotFound once expired (or another's)."""
    png = previews_redis().get(_image_key(workspace_id, token))
    if not isinstance(png, bytes):
        raise NotFound("This diff image has expired; ask for the diff again.")
    return png


def _pages(version: ReportTemplateVersion, *, data: dict[str, Any], tenant_id: int) -> list[bytes]:
    work = PreviewWork(
        engine=version.engine,
        source=version.html,
        css=version.css,
        data=data,
        options=parse_options(version.options or None).as_dict(),
        width=DIFF_WIDTH,
        renderer=version.renderer,
        helpers=version.helpers,
        pages=DIFF_MAX_PAGES,
        partials=template_partials_sources(
            workspace=version.template.workspace_id,
            engine=version.engine,
            html=version.html,
            slug=version.template.slug,
        ),
    )
    # Each side renders with its own schema unchecked: the data is the template's own
    # sample, and a schema change between the versions must not stop the comparison.
    return preview_request_pages(work, schema={}, tenant_id=tenant_id)


def template_diff(
    *,
    before: ReportTemplateVersion,
    after: ReportTemplateVersion,
    tenant_id: int,
    workspace_id: int | None,
) -> tuple[list[PageDiff], str]:
    """Both versions rendered with the same data (the newer one's sample data, else the
    older one's, else none), compared page by page; and the source diff. The images are
    kept under the asking workspace (`workspace_id`): a built-in's diff is its own."""
    data = after.sample_data or before.sample_data or {}
    old = _pages(before, data=data, tenant_id=tenant_id)
    new = _pages(after, data=data, tenant_id=tenant_id)
    pages: list[PageDiff] = []
    for index in range(max(len(old), len(new))):
        left = old[index] if index < len(old) else None
        right = new[index] if index < len(new) else None
        changed, overlay = page_compare(left, right)
        pages.append(
            PageDiff(
                page=index + 1,
                changed_pixels=changed,
                before=None
                if left is None
                else diff_image_store(workspace_id=workspace_id, png=left),
                after=None
                if right is None
                else diff_image_store(workspace_id=workspace_id, png=right),
                overlay=diff_image_store(workspace_id=workspace_id, png=overlay),
            )
        )
    return pages, source_diff(before, after)
