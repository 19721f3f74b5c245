"""Forms of the browser pages: they parse and check input; services decide the rest."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from jsonschema.exceptions import best_match

from reports.options import ORIENTATIONS, PAGE_SIZES
from reports.patterns import PatternUnsupported, SchemaValidator


class ReportRequestForm(forms.Form):
    """Data for a template (JSON, from the generated form or the editor) plus page options."""

    data = forms.CharField(widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false"}))
    filename = forms.CharField(max_length=120, required=False)
    page_size = forms.ChoiceField(choices=[(size, size) for size in PAGE_SIZES], initial="A4")
    orientation = forms.ChoiceField(
        choices=[(value, value.capitalize()) for value in ORIENTATIONS], initial="portrait"
    )

    def __init__(self, *args: Any, schema: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.schema = schema or None

    def clean_data(self) -> dict[str, Any]:
        try:
            value = json.loads(self.cleaned_data["data"])
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(
                f"This is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
            ) from None
        if not isinstance(value, dict):
            raise forms.ValidationError("The data must be a JSON object, in braces: { … }.")
        if self.schema:
            try:  # RE2 patterns: a tenant's `^(a+)+$` must not freeze the web process
                error = best_match(SchemaValidator(self.schema).iter_errors(value))
            except PatternUnsupported as exc:
                raise forms.ValidationError(f"The template's schema {exc}.") from None
            if error is not None:
                where = "/".join(str(part) for part in error.absolute_path) or "the data"
                raise forms.ValidationError(f"{where}: {error.message}")
        return value

    def options(self) -> dict[str, str]:
        fields = self.cleaned_data
        chosen = {"page_size": fields["page_size"], "orientation": fields["orientation"]}
        if fields.get("filename"):
            chosen["filename"] = fields["filename"]
        return chosen


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, label="Name (what uses this key)")
