"""Writes of the template library: create, update (each save a new version), archive."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from reports.engines import ENGINE_NAMES, get_engine
from reports.errors import LimitExceeded, RenderError
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.schemas import data_unstorable_text, data_validate, schema_check

_VERSIONED = ("engine", "html", "css", "schema", "sample_data")


def template_validate(*, engine: str, html: str, css: str, schema: Any, sample_data: Any) -> None:
    """Everything a saved template must satisfy; raise RenderError naming the problem."""
    if engine not in ENGINE_NAMES:
        raise RenderError(f"Unknown engine {engine!r}; use one of: {', '.join(ENGINE_NAMES)}.")
    size = len(html.encode("utf-8")) + len(css.encode("utf-8"))
    if size > settings.PDF_MAX_TEMPLATE_BYTES:
        raise LimitExceeded(
            f"The template is {size} bytes; the limit is {settings.PDF_MAX_TEMPLATE_BYTES} bytes."
        )
    schema_check(schema)
    if not isinstance(sample_data, dict):
        raise RenderError("sample_data must be a JSON object.")
    if len(json.dumps(sample_data)) > settings.PDF_MAX_DATA_BYTES:
        raise LimitExceeded("sample_data is larger than PDF_MAX_DATA_BYTES.")
    for name, value in (("schema", schema), ("sample_data", sample_data)):
        if problem := data_unstorable_text(value):
            raise RenderError(f"{name} {problem}, which cannot be stored.")
    get_engine(engine).check(html)
    try:
        data_validate(schema=schema, data=sample_data)
    except RenderError as exc:
        raise RenderError(f"sample_data does not match the schema: {exc.message}") from None


def _snapshot(template: ReportTemplate, *, by: Any) -> ReportTemplateVersion:
    last = template.versions.order_by("-number").values_list("number", flat=True).first()
    return ReportTemplateVersion.objects.create(
        template=template,
        number=(last or 0) + 1,
        created_by=by if getattr(by, "pk", None) else None,
        **{name: getattr(template, name) for name in _VERSIONED},
    )


@transaction.atomic
def template_create(
    *,
    owner: Any,
    name: str,
    slug: str,
    html: str,
    engine: str = "handlebars",
    css: str = "",
    schema: dict[str, Any] | None = None,
    sample_data: dict[str, Any] | None = None,
) -> ReportTemplate:
    # Only a missing value defaults to {}: `false` or `[]` must fail validation, not vanish.
    schema = {} if schema is None else schema
    sample_data = {} if sample_data is None else sample_data
    template_validate(engine=engine, html=html, css=css, schema=schema, sample_data=sample_data)
    if ReportTemplate.objects.filter(owner=owner, slug=slug).exists():
        raise RenderError(f"You already have a template with slug {slug!r}.")
    template = ReportTemplate.objects.create(
        owner=owner,
        name=name,
        slug=slug,
        engine=engine,
        html=html,
        css=css,
        schema=schema,
        sample_data=sample_data,
    )
    _snapshot(template, by=owner)
    return template


@transaction.atomic
def template_update(*, template: ReportTemplate, by: Any = None, **changes: Any) -> ReportTemplate:
    """Apply changes; a change to what renders saves a new immutable version."""
    allowed = {"name", *_VERSIONED}
    unknown = sorted(set(changes) - allowed)
    if unknown:
        raise RenderError(f"Cannot change: {', '.join(unknown)}.")
    for field, value in changes.items():
        setattr(template, field, value)
    template_validate(
        engine=template.engine,
        html=template.html,
        css=template.css,
        schema=template.schema,
        sample_data=template.sample_data,
    )
    template.save()
    template_record_version(template=template, by=by)
    return template


def template_record_version(*, template: ReportTemplate, by: Any = None) -> ReportTemplateVersion:
    """Save the template's current state as a new version unless the latest already is it."""
    latest = template.latest_version
    if latest is not None and all(getattr(latest, f) == getattr(template, f) for f in _VERSIONED):
        return latest
    return _snapshot(template, by=by)


def template_current_version(*, template: ReportTemplate) -> ReportTemplateVersion:
    """The version new jobs render; a row saved before versioning gets its first one now."""
    latest = template.latest_version
    if latest is not None:
        return latest
    with transaction.atomic():
        return _snapshot(template, by=None)


def template_archive(*, template: ReportTemplate) -> ReportTemplate:
    if template.archived_at is None:
        template.archived_at = timezone.now()
        template.save(update_fields=["archived_at", "updated_at"])
    return template


def template_unarchive(*, template: ReportTemplate) -> ReportTemplate:
    if template.archived_at is not None:
        template.archived_at = None
        template.save(update_fields=["archived_at", "updated_at"])
    return template
