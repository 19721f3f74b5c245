"""Reads of the template library, scoped to a workspace: its own templates and the built-ins."""

from __future__ import annotations

from typing import Any

from django.db.models import BooleanField, ExpressionWrapper, F, Q, QuerySet, Subquery

from core.errors import NotFound
from reports.models import ReportTemplate, ReportTemplateVersion


def template_list_visible(*, workspace: Any, archived: bool = True) -> QuerySet[ReportTemplate]:
    """The workspace's templates and the built-ins; without `archived`, only active ones."""
    templates = ReportTemplate.objects.filter(
        Q(workspace=workspace) | Q(workspace__isnull=True, owner__isnull=True)
    )
    return templates if archived else templates.filter(archived_at__isnull=True)


# Which of two visible templates with one slug a slug names: the workspace's own. New ones
# cannot take a built-in's slug (reports.services.template_slug_check), but a template
# saved before that rule, or a sample added after it, still has one.
OWN_FIRST = F("workspace_id").asc(nulls_last=True)


def template_builtin_slug_taken(*, slug: str) -> bool:
    return ReportTemplate.objects.filter(
        workspace__isnull=True, owner__isnull=True, slug=slug
    ).exists()


def template_get_visible(*, workspace: Any, slug: str) -> ReportTemplate:
    """The workspace's own template with this slug, else the built-in one; NotFound
    otherwise (another workspace's template is indistinguishable from a missing one)."""
    found = template_list_visible(workspace=workspace).filter(slug=slug).order_by(OWN_FIRST).first()
    if found is None:
        raise NotFound(f"No template with slug {slug!r} was found.")
    return found


def template_latest_version_visible(*, workspace: Any, slug: str) -> ReportTemplateVersion | None:
    """The published version (its template joined) of the template template_get_visible
    would choose, in one query: what a submit by slug needs (a draft, newer, is never it;
    a template published before drafts existed falls back to its latest). None when that
    template has no version yet or nothing visible has the slug (template_get_visible then
    tells which)."""
    chosen = (
        template_list_visible(workspace=workspace)
        .filter(slug=slug)
        .order_by(OWN_FIRST)
        .values("pk")[:1]
    )
    return (
        ReportTemplateVersion.objects.select_related("template")
        .filter(template_id=Subquery(chosen))
        .annotate(
            published=ExpressionWrapper(
                Q(pk=F("template__published_version_id")), output_field=BooleanField()
            )
        )
        .order_by(F("published").desc(nulls_last=True), "-number")
        .first()
    )


def template_list_for_gallery(*, workspace: Any) -> list[ReportTemplate]:
    """What the workspace can submit by slug: its own templates shadow built-ins of the
    same slug, exactly as template_get_visible resolves them, and archived ones are left
    out (a submit refuses them). An archived template of the workspace's still shadows the
    built-in of its slug, because a submit by that slug finds the archived one."""
    chosen: dict[str, ReportTemplate] = {}
    for template in template_list_visible(workspace=workspace).order_by(OWN_FIRST):
        chosen.setdefault(template.slug, template)
    active = [template for template in chosen.values() if not template.is_archived]
    return sorted(active, key=lambda template: template.name.lower())


def template_version_list(*, template: ReportTemplate) -> QuerySet[ReportTemplateVersion]:
    return template.versions.order_by("-number")
