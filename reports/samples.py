"""The built-in sample templates shipped in templates/samples/, kept in sync with the database."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from reports.models import Engine, ReportTemplate


@dataclass(frozen=True)
class Sample:
    slug: str
    name: str
    engine: str = Engine.HANDLEBARS


SAMPLES = (
    Sample(slug="invoice", name="Invoice"),
    Sample(slug="sales-report", name="Annual sales report (multi-page)"),
)


def samples_dir() -> Path:
    return Path(settings.BASE_DIR) / "templates" / "samples"


def sample_files(slug: str) -> tuple[str, str, dict]:
    """Return (html, css, sample data) of a shipped sample."""
    base = samples_dir() / slug
    html = base.with_suffix(".hbs").read_text(encoding="utf-8")
    css_path = base.with_suffix(".css")
    css = css_path.read_text(encoding="utf-8") if css_path.exists() else ""
    data = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
    return html, css, data


def template_sync_samples() -> list[ReportTemplate]:
    """Create or update the built-in (owner-less) sample templates from the repository."""
    synced = []
    for sample in SAMPLES:
        html, css, data = sample_files(sample.slug)
        template, _ = ReportTemplate.objects.update_or_create(
            owner=None,
            slug=sample.slug,
            defaults={
                "name": sample.name,
                "engine": sample.engine,
                "html": html,
                "css": css,
                "sample_data": data,
            },
        )
        synced.append(template)
    return synced
