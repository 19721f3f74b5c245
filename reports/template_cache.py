"""The template a submit by slug uses, from a per-process cache that any committed change
of a template or version invalidates (core.generation_cache): the one query of
`template_latest_version_visible` was ~10 M instructions, a quarter of a submit by slug."""

from __future__ import annotations

from typing import Any

from core.generation_cache import GenerationCache
from reports import selectors
from reports.models import ReportTemplateVersion

templates: GenerationCache[ReportTemplateVersion] = GenerationCache("templates")


def template_latest_version_cached(*, workspace: Any, slug: str) -> ReportTemplateVersion | None:
    """`selectors.template_latest_version_visible`, from the cache while no template or
    version has changed. Callers read the answer, never change it (it is shared)."""
    return templates.get(
        (getattr(workspace, "pk", workspace), slug),
        lambda: selectors.template_latest_version_visible(workspace=workspace, slug=slug),
    )


def template_cache_invalidate(**signal: Any) -> None:
    templates.invalidate(**signal)
