"""Forms of the browser pages: they parse and check input; services decide the rest."""

from __future__ import annotations

import json
from typing import Any, cast

from django import forms

from rendering.errors import ApplicationError
from rendering.options import ORIENTATIONS, PAGE_SIZES
from reports.limits import limits_from_settings
from reports.models import Renderer
from reports.validation import template_data_check

# Short names for a select that sits beside page size and orientation.
RENDERER_LABELS = {"xhtml2pdf": "xhtml2pdf", "weasyprint": "WeasyPrint", "chromium": "Chromium"}


class ReportRequestForm(forms.Form):
    """Data for a template (JSON, from the generated form or the editor) plus page options."""

    # A field named like Form.data (the bound input), which the stubs cannot tell apart.
    data = forms.CharField(  # type: ignore[assignment]
        widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false"})
    )
    filename = forms.CharField(max_length=120, required=False)
    page_size = forms.ChoiceField(choices=[(size, size) for size in PAGE_SIZES], initial="A4")
    orientation = forms.ChoiceField(
        choices=[(value, value.capitalize()) for value in ORIENTATIONS], initial="portrait"
    )
    # Empty: the template's own renderer. (The form metaclass takes declared fields off
    # the class, so this never hides BaseForm.renderer; the stubs cannot tell.)
    renderer = forms.ChoiceField(  # type: ignore[assignment]
        choices=[(value, RENDERER_LABELS[value]) for value in Renderer.values], required=False
    )

    def __init__(
        self,
        *args: Any,
        schema: dict[str, Any] | None = None,
        made_for: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.schema = schema or None
        if made_for:  # the others stay choosable, marked: the job then warns what it lost
            field = cast(forms.ChoiceField, self.fields["renderer"])
            field.choices = [
                (value, label if value in made_for else f"{label} (not made for this template)")
                for value, label in RENDERER_LABELS.items()
            ]

    def clean_data(self) -> dict[str, Any]:
        try:
            value = json.loads(self.cleaned_data["data"])
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(
                f"This is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
            ) from None
        # The same checks (shape, size, nesting, schema) as the API's submit and preview.
        try:
            return template_data_check(
                schema=self.schema or {}, data=value, limits=limits_from_settings()
            )
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None

    def options(self) -> dict[str, str]:
        fields = self.cleaned_data
        chosen = {"page_size": fields["page_size"], "orientation": fields["orientation"]}
        if fields.get("filename"):
            chosen["filename"] = fields["filename"]
        return chosen
