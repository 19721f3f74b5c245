"""Input and output shapes of the template API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.sealing import steps_redacted
from core.api_fields import (
    IsoDateTimeField,
    JsonInput,
    JsonObjectField,
    PdfOptionsField,
    QueryFilters,
    renderer_field,
    template_file_field,
    template_file_taken,
)
from rendering.engines import ENGINE_NAMES, UNKNOWN_ENGINE_MESSAGE
from rendering.renderers import DEFAULT_RENDERER
from reports.models import ReportTemplate
from reports.preview import PREVIEW_MAX_PAGES


class TemplateDraftSerializer(serializers.Serializer[Any]):
    """A version's source: the draft in a template's JSON."""

    number = serializers.IntegerField()
    engine = serializers.ChoiceField(choices=ENGINE_NAMES)
    renderer = renderer_field()
    html = serializers.CharField()
    css = serializers.CharField()
    helpers = serializers.CharField()
    schema = JsonObjectField()
    sample_data = JsonObjectField()
    options = PdfOptionsField()
    created_at = IsoDateTimeField()


class TemplateOutputSerializer(serializers.Serializer[Any]):
    slug = serializers.SlugField()
    name = serializers.CharField()
    engine = serializers.ChoiceField(choices=ENGINE_NAMES)
    renderer = renderer_field()
    html = serializers.CharField()
    css = serializers.CharField()
    helpers = serializers.CharField()
    schema = JsonObjectField(help_text="JSON Schema every job's data must match.")
    sample_data = JsonObjectField()
    cache_results = serializers.BooleanField()
    renderers = serializers.ListField(
        child=renderer_field(), help_text="The renderers it is made for; empty: any."
    )
    options = PdfOptionsField(help_text="The options every job of it starts from.")
    steps = serializers.SerializerMethodField(
        help_text=(
            'Post-render steps of its jobs; an encrypt step\'s passwords show as "[sealed]", '
            "which a save sends back to keep them."
        ),
    )
    version = serializers.SerializerMethodField(
        help_text="Number of the version new jobs render (the published one)."
    )
    draft_version = serializers.SerializerMethodField(
        help_text="Number of the unpublished draft (a PATCH saves one); null: none."
    )
    draft = serializers.SerializerMethodField(
        help_text="The draft's source (what a publish would make live); null: none."
    )
    published_at = IsoDateTimeField(allow_null=True)
    published_by = serializers.SerializerMethodField(help_text="Who published; null: unknown.")
    builtin = serializers.SerializerMethodField()
    archived = serializers.BooleanField(source="is_archived")
    created_at = IsoDateTimeField()
    updated_at = IsoDateTimeField()

    def get_steps(self, template: ReportTemplate) -> list[dict[str, Any]]:
        return steps_redacted(template.steps)

    def get_version(self, template: ReportTemplate) -> int | None:
        version = template.published_version or template.latest_version
        return version.number if version else None

    def get_draft_version(self, template: ReportTemplate) -> int | None:
        return template.draft_version.number if template.draft_version else None

    @extend_schema_field(TemplateDraftSerializer(allow_null=True))
    def get_draft(self, template: ReportTemplate) -> dict[str, Any] | None:
        draft = template.draft_version
        return None if draft is None else dict(TemplateDraftSerializer(draft).data)

    def get_published_by(self, template: ReportTemplate) -> str | None:
        return template.published_by.get_username() if template.published_by else None

    def get_builtin(self, template: ReportTemplate) -> bool:
        return template.workspace_id is None


class TemplateVersionOutputSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    engine = serializers.CharField()
    renderer = serializers.CharField()
    created_at = IsoDateTimeField()


_HTML_REQUIRED = "This field is required (or template_file, for a docx or pdf-form template)."


class TemplateFieldsSerializer(JsonInput):
    name = serializers.CharField(max_length=200)
    engine = serializers.ChoiceField(
        choices=ENGINE_NAMES,
        default="handlebars",
        error_messages={"invalid_choice": UNKNOWN_ENGINE_MESSAGE},
    )
    renderer = renderer_field(default=DEFAULT_RENDERER, help_text="What lays the HTML out.")
    html = serializers.CharField(trim_whitespace=False, required=False)
    template_file = template_file_field()
    css = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    helpers = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="JavaScript whose top-level functions become Handlebars helpers.",
    )
    schema = JsonObjectField(required=False)
    sample_data = JsonObjectField(required=False)
    renderers = serializers.ListField(
        child=renderer_field(),
        required=False,
        help_text="The renderers it is made for (a job on another gets a warning); empty: any.",
    )
    options = PdfOptionsField(
        required=False,
        help_text="Job options (e.g. pdf.profile) under each submit's own; checked at save.",
    )
    steps = serializers.JSONField(
        required=False,
        help_text="Post-render steps its jobs run unless a submit sends steps; checked at save.",
    )
    cache_results = serializers.BooleanField(
        required=False,
        help_text="Submits of this template use the result cache unless they send cache: false.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # A PATCH without an engine keeps the template's: the view passes it.
        engine = attrs.get("engine") if "engine" in self.initial_data else None
        attrs = template_file_taken(
            attrs, into="html", engine=engine or self.context.get("engine") or attrs.get("engine")
        )
        if not self.partial and not attrs.get("html"):
            raise serializers.ValidationError({"html": [_HTML_REQUIRED]})
        return attrs


class TemplateCreateSerializer(TemplateFieldsSerializer):
    slug = serializers.SlugField(max_length=100)


# Fields a PATCH may not change: the slug is the template's name in every submit.
TEMPLATE_READ_ONLY = (
    "slug",
    "version",
    "draft_version",
    "draft",
    "published_at",
    "published_by",
    "builtin",
    "archived",
    "created_at",
    "updated_at",
)


class TemplateUpdateSerializer(TemplateFieldsSerializer):
    """A PATCH: any of the updatable fields; a read-only or unknown one is a 400 naming it,
    never silently ignored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, partial=True, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            problems = {
                name: [
                    "This field is read-only; create a new template to use another slug."
                    if name == "slug"
                    else "This field is read-only."
                    if name in TEMPLATE_READ_ONLY
                    else f"Unknown field; a PATCH takes {', '.join(self.fields)}."
                ]
                for name in data
                if name not in self.fields
            }
            if problems:
                raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class TemplateRollbackSerializer(JsonInput):
    version = serializers.IntegerField(min_value=1, help_text="The version to publish again.")


class TemplateFilterSerializer(QueryFilters):
    archived = serializers.BooleanField(
        required=False, default=False, help_text="include archived ones"
    )


class TemplatePreviewSerializer(JsonInput):
    data = JsonObjectField(  # type: ignore[assignment]
        required=False,
        help_text="Defaults to the sample data; required when the template has none.",
    )
    options = PdfOptionsField(required=False, default=dict)
    width = serializers.IntegerField(required=False, min_value=100, max_value=1600)
    renderer = renderer_field(
        required=False, help_text="Preview with another renderer than the template's."
    )
    version = serializers.CharField(
        required=False,
        help_text="Which version: a number, `draft` or `published` (the default).",
    )
    # The studio previews what is in its editors before it is saved: any of these replace
    # the version's own (checked as a save checks them, errors at their line).
    engine = serializers.ChoiceField(choices=ENGINE_NAMES, required=False)
    html = serializers.CharField(required=False, trim_whitespace=False)
    css = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    helpers = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    schema = JsonObjectField(required=False)
    pages = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=PREVIEW_MAX_PAGES,
        help_text="Answer JSON with the first N pages as PNG data URLs instead of one PNG.",
    )


PREVIEW_SOURCE_FIELDS = ("engine", "html", "css", "helpers", "schema")


class TemplatePreviewPagesSerializer(serializers.Serializer[Any]):
    pages = serializers.ListField(child=serializers.CharField(), help_text="data:image/png URLs")


class TemplateDiffQuerySerializer(QueryFilters):
    # `from` is a Python keyword: the field is declared under its query name below.
    to = serializers.CharField(
        required=False, help_text="A version number, `draft` or `published` (default: the draft)."
    )

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = serializers.CharField(
            required=False, help_text="A version number, `draft` or `published` (the default)."
        )
        return fields


class TemplateDiffPageSerializer(serializers.Serializer[Any]):
    page = serializers.IntegerField(help_text="1-based.")
    changed_pixels = serializers.IntegerField()
    before_png_url = serializers.CharField(allow_null=True, help_text="Null: no such page.")
    after_png_url = serializers.CharField(allow_null=True, help_text="Null: no such page.")
    overlay_png_url = serializers.CharField(help_text="The newer page, changed pixels marked.")


class TemplateDiffOutputSerializer(serializers.Serializer[Any]):
    from_version = serializers.IntegerField()
    to_version = serializers.IntegerField()
    pages = TemplateDiffPageSerializer(many=True)
    source_diff = serializers.CharField(help_text="Unified diff of the source files.")
