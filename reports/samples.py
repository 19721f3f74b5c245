"""The built-in sample templates shipped in templates/samples/, kept in sync with the database."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from reports.models import Renderer, ReportTemplate
from reports.services import template_create, template_update


@dataclass(frozen=True)
class Sample:
    slug: str
    name: str
    engine: str = "handlebars"
    renderer: str = Renderer.XHTML2PDF
    # The renderers it is made for: each uses one renderer's own features (xhtml2pdf's
    # <pdf:pagenumber> and frames, WeasyPrint's margin boxes, Chromium's scripts).
    renderers: tuple[str, ...] = (Renderer.XHTML2PDF,)


SAMPLES = (
    Sample(slug="invoice", name="Invoice"),
    Sample(slug="sales-report", name="Annual sales report (multi-page, charts, contents)"),
    Sample(slug="operations-review", name="Operations review (50 pages, 30 charts)"),
    Sample(
        slug="studio-invoice",
        name="Studio invoice (WeasyPrint: flex, grid, page numbers in the margins)",
        renderer=Renderer.WEASYPRINT,
        renderers=(Renderer.WEASYPRINT,),
    ),
    Sample(
        slug="e-invoice",
        name="E-invoice (WeasyPrint, PDF/A-3b with Factur-X XML: see e-invoice.cii.xml)",
        renderer=Renderer.WEASYPRINT,
        renderers=(Renderer.WEASYPRINT,),  # PDF/A and the Factur-X attachment: WeasyPrint only
    ),
    Sample(
        slug="field-metrics",
        name="Field metrics (Chromium: charts drawn by the template's script)",
        renderer=Renderer.CHROMIUM,
        renderers=(Renderer.CHROMIUM,),
    ),
    # Flat fields, one record a PDF: made for runs from a CSV (see docs/guides/runs.md).
    Sample(slug="certificate", name="Certificate (flat fields: one PDF per CSV row)"),
)


def samples_dir() -> Path:
    return Path(settings.BASE_DIR) / "templates" / "samples"


def sample_files(slug: str) -> tuple[str, str, dict[str, Any]]:
    """Return (html, css, sample data) of a shipped sample."""
    base = samples_dir() / slug
    html = base.with_suffix(".hbs").read_text(encoding="utf-8")
    css_path = base.with_suffix(".css")
    css = css_path.read_text(encoding="utf-8") if css_path.exists() else ""
    data = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
    return html, css, data


def sample_schema(slug: str) -> dict[str, Any]:
    """The sample's JSON Schema (templates/samples/<slug>.schema.json), or {} if it has none."""
    path = (samples_dir() / slug).with_suffix(".schema.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def template_sync_samples() -> list[ReportTemplate]:
    """Create or update the built-in (owner-less) sample templates from the repository;
    a changed sample becomes a new version, an unchanged one is left alone."""
    synced = []
    for sample in SAMPLES:
        html, css, data = sample_files(sample.slug)
        schema = sample_schema(sample.slug)
        fields: dict[str, Any] = {"name": sample.name, "engine": sample.engine}
        fields["renderer"] = sample.renderer
        fields["renderers"] = [str(name) for name in sample.renderers]
        fields |= {"html": html, "css": css}
        fields |= {"schema": schema, "sample_data": data}
        existing = ReportTemplate.objects.filter(owner=None, slug=sample.slug).first()
        if existing is None:
            synced.append(template_create(owner=None, slug=sample.slug, **fields))
        else:
            synced.append(template_update(template=existing, **fields))
    return synced
