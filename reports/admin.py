"""Staff maintain the template library here; every save records an immutable version."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.sealing import steps_redacted
from rendering.errors import ApplicationError
from reports.models import Renderer, ReportTemplate, ReportTemplateVersion
from reports.services import (
    VERSIONED_FIELDS,
    template_archive,
    template_includes_check,
    template_job_defaults_check,
    template_saved_elsewhere,
    template_slug_check,
    template_unarchive,
    template_validate,
)
from workspaces.permissions import Action, can
from workspaces.services import workspace_personal


def _workspace_of(cleaned: dict[str, Any]) -> Any:
    """The workspace the template is saved into: the one chosen, else its owner's personal
    one (as template_create does); none for a built-in (no owner)."""
    if cleaned.get("workspace"):
        return cleaned["workspace"]
    owner = cleaned.get("owner")
    return workspace_personal(user=owner) if owner is not None else None


class ReportTemplateForm(forms.ModelForm[ReportTemplate]):
    class Meta:
        model = ReportTemplate
        fields = ("workspace", "owner", "name", "slug", "renderers", *VERSIONED_FIELDS)
        help_texts = {
            "options": 'Job options its jobs start from (e.g. {"pdf": {"profile": '
            '"pdf/ua-1"}}), checked as a submit checks them.',
            "steps": 'Post-render steps of its jobs. Sealed passwords show as "[sealed]"; '
            "leave them so to keep the stored ones.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Left out of a post (an older form, a script): the default, as the API does.
        self.fields["renderer"].required = False
        # Never the sealed token in the page: the placeholder stands for it.
        self.initial["steps"] = steps_redacted(self.instance.steps or [])

    def clean_renderer(self) -> str:
        return self.cleaned_data.get("renderer") or Renderer.XHTML2PDF

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        try:
            if cleaned.get("slug"):
                template_slug_check(
                    workspace=_workspace_of(cleaned), slug=cleaned["slug"], template=self.instance
                )
            template_validate(
                engine=cleaned.get("engine", ""),
                html=cleaned.get("html", ""),
                css=cleaned.get("css", ""),
                schema=cleaned.get("schema") or {},
                sample_data=cleaned.get("sample_data") or {},
                renderer=cleaned.get("renderer", ""),
                helpers=cleaned.get("helpers", ""),
                renderers=cleaned.get("renderers") or [],
            )
            template_includes_check(
                workspace=_workspace_of(cleaned),
                slug=cleaned.get("slug", ""),
                engine=cleaned.get("engine", ""),
                html=cleaned.get("html", ""),
            )
            cleaned["options"], cleaned["steps"] = template_job_defaults_check(
                options=cleaned.get("options"),
                steps=cleaned.get("steps"),
                renderer=cleaned.get("renderer", ""),
                workspace=_workspace_of(cleaned),
                stored=self.instance.steps if self.instance.pk else None,
            )
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None
        return cleaned


class VersionInline(admin.TabularInline[ReportTemplateVersion, ReportTemplate]):
    model = ReportTemplateVersion
    fields = ("number", "engine", "renderer", "created_by", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ReportTemplate)
class ReportTemplateAdmin(admin.ModelAdmin[ReportTemplate]):
    form = ReportTemplateForm
    list_display = (
        "name",
        "slug",
        "engine",
        "renderer",
        "workspace",
        "owner",
        "archived_at",
        "updated_at",
    )
    list_filter = ("engine", "renderer", ("archived_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    inlines = (VersionInline,)
    actions = ("archive", "unarchive")

    def save_model(
        self, request: HttpRequest, obj: ReportTemplate, form: Any, change: bool
    ) -> None:
        before = ReportTemplate.objects.filter(pk=obj.pk).first() if change else None
        super().save_model(request, obj, form, change)
        # The form calls a re-formatted JSON field changed; the audit names real changes.
        fields = [f for f in form.changed_data if getattr(before, f, None) != getattr(obj, f)]
        template_saved_elsewhere(template=obj, by=request.user, created=not change, fields=fields)

    @admin.action(description="Archive selected templates (they take no new jobs)")
    def archive(self, request: HttpRequest, queryset: QuerySet[ReportTemplate]) -> None:
        allowed = [t for t in queryset if can(request.user, Action.TEMPLATE_EDIT, t)]
        done = [
            t
            for t in allowed
            if not t.is_archived and template_archive(template=t, by=request.user)
        ]
        self.message_user(request, f"Archived {len(done)}.")

    @admin.action(description="Restore selected archived templates")
    def unarchive(self, request: HttpRequest, queryset: QuerySet[ReportTemplate]) -> None:
        allowed = [t for t in queryset if can(request.user, Action.TEMPLATE_EDIT, t)]
        done = [
            t for t in allowed if t.is_archived and template_unarchive(template=t, by=request.user)
        ]
        self.message_user(request, f"Restored {len(done)}.")
