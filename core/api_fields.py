"""Serializer fields and bases of the API whose OpenAPI description says more than DRF's."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from rendering.options import ORIENTATIONS, PAGE_SIZES
from rendering.renderers import RENDERER_DESCRIPTIONS, RENDERER_NAMES

# null is the same as leaving a text option out (rendering.options reads it so).
_TEXT = {"type": "string", "maxLength": 300, "nullable": True}
OPTIONS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "filename": {"type": "string", "description": "Download name (made safe, .pdf added)."},
        "page_size": {"type": "string", "enum": list(PAGE_SIZES)},
        "orientation": {"type": "string", "enum": list(ORIENTATIONS)},
        "margin": {
            "type": "string",
            "nullable": True,
            "description": "1-4 CSS lengths in mm, cm, in or pt.",
        },
        "title": _TEXT,
        "author": {**_TEXT, "maxLength": 200},
        "subject": _TEXT,
        "header": {**_TEXT, "description": "{page} and {pages} become numbers."},
        "footer": {**_TEXT, "description": "{page} and {pages} become numbers."},
        "watermark": {"type": "string", "maxLength": 40, "nullable": True},
        "test_mode": {"type": "boolean"},
    },
}


# Labelled choices: the schema's RendererEnum then says what each renderer is.
RENDERER_CHOICES = [(name, RENDERER_DESCRIPTIONS[name]) for name in RENDERER_NAMES]
# DRF's own message does not list the choices; this one does.
UNKNOWN_RENDERER = f"Unknown renderer {{input!r}}; use one of: {', '.join(RENDERER_NAMES)}."


def renderer_field(**kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=RENDERER_CHOICES,
        error_messages={"invalid_choice": UNKNOWN_RENDERER},
        **kwargs,
    )


def choice_filter(noun: str, values: Sequence[str], **kwargs: Any) -> serializers.ChoiceField:
    """An optional list filter whose typo is answered with the accepted values: DRF's own
    message lists none, and a typo must not look like "no such rows"."""
    return serializers.ChoiceField(
        choices=list(values),
        required=False,
        error_messages={
            "invalid_choice": f"Unknown {noun} {{input!r}}; use one of: {', '.join(values)}."
        },
        **kwargs,
    )


class IsoDateTimeField(serializers.DateTimeField):
    """`datetime.isoformat()` as the API has always answered (`+00:00`, not DRF's `Z`)."""

    def to_representation(self, value: datetime | None) -> str | None:  # type: ignore[override]
        return value.isoformat() if value else None


@extend_schema_field(OpenApiTypes.OBJECT)
class JsonObjectField(serializers.JSONField):
    """Any JSON object (data, a JSON Schema); the services check it is one."""


@extend_schema_field(OPTIONS_SCHEMA)
class PdfOptionsField(serializers.JSONField):
    """Page options; reports.options parses and checks them."""


class QueryFilters(serializers.Serializer[Any]):
    """Query-string filters. A blank value (`?status=`) is refused, where DRF's form rule
    would silently read it as absent."""

    def to_internal_value(self, data: Any) -> Any:
        blank = {
            name: ["This field may not be blank."]
            for name, field in self.fields.items()
            if data.get(name) == "" and not getattr(field, "allow_blank", False)
        }
        if blank:
            raise serializers.ValidationError(blank)
        return super().to_internal_value(data)


class JsonInput(serializers.Serializer[Any]):
    """A JSON request body, typed as the schema says: DRF would read 7 as "7" for a text
    field and "7" as 7 for a number; here each must arrive as its own JSON type. With
    `refuse_unknown`, a field the body does not define (a typo: `tempalte`) is refused by
    name, where DRF would drop it silently."""

    refuse_unknown = False

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping) and self.refuse_unknown:
            unknown = {
                shown_name(name): [unknown_field_message(str(name), list(self.fields))]
                for name in data
                if name not in self.fields
            }
            if unknown:
                raise serializers.ValidationError(unknown)
        if isinstance(data, Mapping):
            wrong = {
                name: [f"Must be {expected}."]
                for name, field in self.fields.items()
                if (expected := _json_type_error(field, data.get(name, None)))
            }
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


def shown_name(name: object) -> str:
    """Text a caller sent, safe to echo back and to store: control characters (NUL, which
    PostgreSQL's text refuses, among them) and unpaired UTF-16 surrogates (valid in JSON,
    not in UTF-8) shown as their \\u escapes."""
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in str(name)
    )


def storable_text(text: str) -> str:
    """`text` as PostgreSQL's text and UTF-8 take it: a NUL or an unpaired UTF-16
    surrogate (which a message may echo from the caller's JSON) shown as its \\u escape;
    line breaks and the rest kept."""
    return "".join(
        f"\\u{ord(ch):04x}" if ch == "\x00" or unicodedata.category(ch) == "Cs" else ch
        for ch in text
    )


def unknown_field_message(name: str, known: list[str]) -> str:
    """'Unknown field; did you mean "template"? ...' for a body field nothing reads."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f' Did you mean "{close[0]}"?' if close else ""
    return f"Unknown field.{hint} Known fields: {', '.join(known)}."


def _json_type_error(field: serializers.Field[Any, Any, Any, Any], value: Any) -> str:
    if value is None:
        return ""  # absent or null: the field's own rules answer
    if isinstance(field, serializers.CharField) and not isinstance(value, str):
        return "a string"
    if isinstance(field, serializers.IntegerField) and (
        isinstance(value, bool) or not isinstance(value, int)
    ):
        return "an integer"
    if isinstance(field, serializers.BooleanField) and not isinstance(value, bool):
        return "true or false"
    return ""
