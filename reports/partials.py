"""Which templates a template's includes name: the workspace's own, by slug, at their
published versions, found transitively and bounded (rendering.engines.partials checks the
cycles and depth; this module finds the versions and bounds their count)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rendering.engines.partials import MAX_DEPTH, partial_names, partials_check
from rendering.errors import TemplateSyntaxError
from reports.models import ReportTemplate, ReportTemplateVersion

# How many different templates one template may include, directly or not.
MAX_PARTIALS = 32


def _own_templates(*, workspace: Any, slugs: list[str]) -> dict[str, ReportTemplate]:
    """The workspace's own active templates with these slugs (no workspace: the built-in
    samples'); another workspace's are never found."""
    scope = (
        {"workspace": workspace}
        if workspace is not None
        else {"workspace__isnull": True, "owner__isnull": True}
    )
    found = ReportTemplate.objects.filter(
        **scope, slug__in=slugs, archived_at__isnull=True
    ).select_related("published_version")
    return {template.slug: template for template in found}


def _version_of(template: ReportTemplate) -> ReportTemplateVersion | None:
    """What new jobs render: the published version (a row saved before publishing
    existed: its latest)."""
    return template.published_version or template.latest_version


def template_partials_resolve(
    *, workspace: Any, engine: str, html: str, slug: str = ""
) -> dict[str, ReportTemplateVersion]:
    """The published version of every template `html` includes, directly or through
    others, by slug. A template error naming the slug when one is not the workspace's
    own, uses another engine, forms a cycle (`slug`: the including template's own; a
    template that includes itself) or nests deeper than MAX_DEPTH; more than
    MAX_PARTIALS different ones are refused too."""
    versions: dict[str, ReportTemplateVersion] = {}
    pending = [name for name in partial_names(engine, html) if name != slug]
    depth = 0
    while pending:
        depth += 1
        if depth > MAX_DEPTH:
            raise TemplateSyntaxError(
                f"Template syntax error: partials nest deeper than {MAX_DEPTH} at {pending[0]!r}."
            )
        if len(versions) + len(pending) > MAX_PARTIALS:
            raise TemplateSyntaxError(
                f"Template syntax error: a template may include at most {MAX_PARTIALS} "
                f"templates (at {pending[0]!r})."
            )
        templates = _own_templates(workspace=workspace, slugs=pending)
        following: list[str] = []
        for name in pending:
            template = templates.get(name)
            version = _version_of(template) if template is not None else None
            if template is None or version is None:
                raise TemplateSyntaxError(
                    f"Template syntax error: no template {name!r} to include (includes "
                    "name this workspace's own active templates by slug)."
                )
            if template.engine != engine:
                raise TemplateSyntaxError(
                    f"Template syntax error: the partial {name!r} uses the {template.engine} "
                    f"engine; a {engine} template includes only {engine} templates."
                )
            versions[name] = version
            for inner in partial_names(engine, versions[name].html):
                if inner != slug and inner not in versions and inner not in following:
                    following.append(inner)
        pending = [name for name in following if name not in versions]
    partials_check(engine, html, partials_sources(versions), slug=slug)
    return versions


def partials_sources(versions: Mapping[str, ReportTemplateVersion]) -> dict[str, str]:
    """slug -> source: what an engine is given to include (rendering.report.TemplateSource)."""
    return {name: version.html for name, version in versions.items()}


def template_partials_sources(
    *, workspace: Any, engine: str, html: str, slug: str = ""
) -> dict[str, str]:
    """What a preview gives the engine: the sources template_partials_resolve finds."""
    return partials_sources(
        template_partials_resolve(workspace=workspace, engine=engine, html=html, slug=slug)
    )


def partials_recorded(versions: Mapping[str, ReportTemplateVersion]) -> dict[str, int]:
    """slug -> version id: what a job records, so it renders exactly those versions."""
    return {name: version.pk for name, version in sorted(versions.items())}


def partials_of_job(recorded: Mapping[str, int]) -> dict[str, str]:
    """The sources of the versions a job recorded (a template error naming a partial whose
    template has been deleted since)."""
    found = dict(
        ReportTemplateVersion.objects.filter(pk__in=recorded.values()).values_list("pk", "html")
    )
    missing = [name for name, pk in recorded.items() if pk not in found]
    if missing:
        raise TemplateSyntaxError(
            f"Template syntax error: the template {missing[0]!r} this job includes has been "
            "deleted."
        )
    return {name: found[pk] for name, pk in recorded.items()}
