"""Serializer fields and bases of the API whose OpenAPI description says more than DRF's."""

from __future__ import annotations

import copy
import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from rendering.engines import template_file_source
from rendering.errors import RenderError
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

    @classmethod
    def of(cls, request: Request) -> dict[str, Any]:
        """The request's query string read through these filters; a 400 naming each field
        that is wrong."""
        filters = cls(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return dict(filters.validated_data)


_SURROGATE = re.compile("[\ud800-\udfff]")


class SurrogateCheck(ProhibitSurrogateCharactersValidator):
    """DRF's check that a text field has no UTF-16 surrogate, with the same message and
    code for the same first surrogate, found by one regular-expression search instead of
    DRF's Python loop over every character (a submit's inline `html_template` is
    thousands of characters: the loop was the largest single cost of its validation)."""

    def __call__(self, value: Any) -> None:
        found = _SURROGATE.search(str(value))
        if found is not None:
            message = self.message.format(code_point=ord(found.group()))
            raise serializers.ValidationError(message, code=self.code)


def _surrogate_checks_fast(fields: Mapping[str, serializers.Field[Any, Any, Any, Any]]) -> None:
    for field in fields.values():
        validators = field.__dict__.get("_validators")
        if validators is None:
            continue
        field.__dict__["_validators"] = [
            SurrogateCheck() if type(v) is ProhibitSurrogateCharactersValidator else v
            for v in validators
        ]


class CheapFieldCopies:
    """A serializer mixin: each instance gets its own copies of the declared fields, as
    DRF gives it, but made by copying each field's attributes instead of DRF's deep copy
    (which builds every field again from its arguments: 12 % of a submit's time, for
    its input and its event). The copies share what a field only reads (its choices,
    messages, validators); binding sets the name and parent on the copy alone. A field
    that holds other fields (a list's child, a nested serializer) is still deep-copied,
    since its children are bound to it. A declared text field's surrogate check is
    `SurrogateCheck` (DRF's answer, without its per-character loop)."""

    _declared_fields: dict[str, serializers.Field[Any, Any, Any, Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _surrogate_checks_fast(cls._declared_fields)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {name: _field_copy(field) for name, field in self._declared_fields.items()}


def _field_copy(
    field: serializers.Field[Any, Any, Any, Any],
) -> serializers.Field[Any, Any, Any, Any]:
    if (
        isinstance(field, serializers.BaseSerializer)
        or hasattr(field, "child")
        or hasattr(field, "child_relation")
    ):
        return copy.deepcopy(field)
    clone = object.__new__(type(field))
    clone.__dict__.update(field.__dict__)
    if "_validators" in clone.__dict__:  # a list a caller could append to: its own
        clone.__dict__["_validators"] = list(clone.__dict__["_validators"])
    return clone


class JsonInput(CheapFieldCopies, serializers.Serializer[Any]):
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


def template_file_field() -> serializers.CharField:
    """`template_file`: a file template's file (a .docx, a fillable PDF) in base64, taken
    instead of its source as a data URI."""
    return serializers.CharField(
        required=False,
        write_only=True,
        help_text="A docx or pdf-form template's file in base64 (instead of its source as "
        "a data URI).",
    )


def template_file_taken(attrs: dict[str, Any], *, into: str, engine: str | None) -> dict[str, Any]:
    """The checked fields with `template_file` made the engine's source, under `into`."""
    encoded = attrs.pop("template_file", None)
    if encoded is None:
        return attrs
    if attrs.get(into):
        raise serializers.ValidationError(
            {"template_file": [f"Send {into} or template_file, not both."]}
        )
    try:
        attrs[into] = template_file_source(engine, encoded)
    except RenderError as exc:
        raise serializers.ValidationError({"template_file": [exc.message]}) from None
    return attrs
