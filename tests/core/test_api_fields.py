"""Serializers with CheapFieldCopies: each instance has fields of its own, bound to it, and
answers exactly as with DRF's deep copies. QueryFilters read a request's query string."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.api_fields import QueryFilters
from jobs.api.serializers import JobCreateInputSerializer
from jobs.state import JobStateSerializer

BAD_BODIES: list[dict[str, Any]] = [
    {"template": "not a slug!", "data": {}},
    {"html_template": 7},
    {"html_template": "<p/>", "engine": "nope"},
    {"html_template": "<p/>", "renderer": "nope"},
    {"html_template": "<p/>", "callback_url": "not a url"},
    {"html_template": "<p/>", "cache": "yes"},
    {"html_template": None},
    {"tempalte": "invoice"},
]


def test_each_instance_has_its_own_fields_bound_to_it_and_the_declared_ones_stay_unbound():
    first, second = JobCreateInputSerializer(data={}), JobCreateInputSerializer(data={})
    for name, field in first.fields.items():
        assert field is not second.fields[name]
        assert field.parent is first
        assert second.fields[name].parent is second
        assert field.field_name == name
    assert all(field.parent is None for field in JobCreateInputSerializer._declared_fields.values())
    # A field holding another (a list's child) is still deep-copied: its child is its own.
    state = JobStateSerializer()
    warnings = state.fields["warnings"]
    assert warnings.child.parent is warnings  # type: ignore[attr-defined]


class _DeepCopied(JobCreateInputSerializer):
    """The same serializer with DRF's own deep copies."""

    def get_fields(self) -> dict[str, Any]:
        return copy.deepcopy(self._declared_fields)


@pytest.mark.parametrize("body", BAD_BODIES)
def test_the_same_errors_as_with_drfs_deep_copies(body):
    cheap, deep = JobCreateInputSerializer(data=body), _DeepCopied(data=body)
    assert cheap.is_valid() is deep.is_valid() is False
    assert cheap.errors == deep.errors


def test_the_same_values_as_with_drfs_deep_copies():
    body = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}, "engine": "handlebars"}
    cheap, deep = JobCreateInputSerializer(data=body), _DeepCopied(data=body)
    assert cheap.is_valid()
    assert deep.is_valid()
    assert cheap.validated_data == deep.validated_data


SURROGATE_CASES = [
    "",
    "<p>{{name}}</p>" * 200,
    "plain \U0001f600 astral, not a surrogate",
    "a\ud800b",
    "x" * 5000 + "\udfff",
    "\udc00 then \ud800: the first is named",
    "\ud7ff\ue000 around the range",
]


@pytest.mark.parametrize("value", SURROGATE_CASES)
def test_the_surrogate_check_answers_as_drfs(value):
    from rest_framework.exceptions import ValidationError
    from rest_framework.validators import ProhibitSurrogateCharactersValidator

    from core.api_fields import SurrogateCheck

    answers = []
    for check in (SurrogateCheck(), ProhibitSurrogateCharactersValidator()):
        try:
            check(value)
        except ValidationError as exc:
            answers.append((exc.detail, exc.get_codes()))
        else:
            answers.append(None)
    assert answers[0] == answers[1]


def test_the_submits_text_fields_check_surrogates_with_the_fast_check():
    from rest_framework.validators import ProhibitSurrogateCharactersValidator

    from core.api_fields import SurrogateCheck

    field = JobCreateInputSerializer(data={}).fields["html_template"]
    assert any(isinstance(v, SurrogateCheck) for v in field.validators)
    assert not any(type(v) is ProhibitSurrogateCharactersValidator for v in field.validators)
    serializer = JobCreateInputSerializer(data={"html_template": "<p>\ud83d</p>"})
    assert not serializer.is_valid()
    assert serializer.errors == {"html_template": ["Surrogate characters are not allowed: U+D83D."]}


class _Filters(QueryFilters):
    status = serializers.ChoiceField(choices=["queued", "failed"], required=False)
    limit = serializers.IntegerField(default=50)


def test_query_filters_read_a_request_query_string_into_its_values():
    request = Request(APIRequestFactory().get("/x", {"status": "failed"}))
    assert _Filters.of(request) == {"status": "failed", "limit": 50}


@pytest.mark.parametrize("query", [{"status": "lost"}, {"status": ""}, {"limit": "many"}])
def test_query_filters_refuse_a_wrong_or_blank_value_naming_its_field(query):
    request = Request(APIRequestFactory().get("/x", query))
    with pytest.raises(serializers.ValidationError) as refused:
        _Filters.of(request)
    assert set(refused.value.detail) == set(query)
