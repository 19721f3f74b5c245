"""Template data checked against JSON Schema, with messages that name the failing path."""

from __future__ import annotations

import json
import time

import pytest

from rendering.limits import DEFAULT_LIMITS
from reports.validation import (
    DataValidationError,
    SchemaInvalid,
    data_check_sized,
    data_depth,
    data_validate,
    schema_check,
)

ITEMS_SCHEMA = {
    "type": "object",
    "required": ["customer", "items"],
    "properties": {
        "customer": {"type": "string"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["price"],
                "properties": {"price": {"type": "number"}},
            },
        },
    },
}


def test_wrong_type_names_the_path_and_the_expected_type():
    items = [{"price": 1}, {"price": 2}, {"price": 3}, {"price": "12.50"}]
    with pytest.raises(DataValidationError) as caught:
        data_validate(schema=ITEMS_SCHEMA, data={"customer": "A", "items": items})
    assert caught.value.message == "items[3].price: expected number"
    assert caught.value.code == "invalid_data"


def test_missing_property_is_named():
    with pytest.raises(DataValidationError, match="missing required property 'customer'"):
        data_validate(schema=ITEMS_SCHEMA, data={"items": []})


def test_valid_data_and_an_empty_schema_pass():
    data_validate(schema=ITEMS_SCHEMA, data={"customer": "A", "items": [{"price": 1.5}]})
    data_validate(schema={}, data={"anything": [1, "x"]})


def test_a_schema_that_is_not_json_schema_is_refused():
    with pytest.raises(SchemaInvalid, match="not a valid JSON Schema"):
        schema_check({"type": "no-such-type"})
    with pytest.raises(SchemaInvalid, match="must be a JSON object"):
        schema_check(["type"])


def test_data_depth_stops_counting_past_the_limit():
    deep: dict = {}
    node = deep
    for _ in range(400):
        node["a"] = {}
        node = node["a"]
    assert data_depth(deep, limit=100) == 101
    assert data_depth({"a": [1, {"b": 2}]}, limit=100) == 4


EVIL = "^(a+)+$"
LONG = "a" * 50_000 + "!"  # Python's re would backtrack for longer than the universe lasts


def test_a_catastrophic_pattern_is_answered_in_linear_time():
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": EVIL}}}
    started = time.monotonic()
    with pytest.raises(DataValidationError, match="name: 'aaa"):
        data_validate(schema=schema, data={"name": LONG})
    assert time.monotonic() - started < 1.0


def test_pattern_properties_and_additional_properties_use_the_linear_engine():
    schema = {"patternProperties": {EVIL: {"type": "integer"}}, "additionalProperties": False}
    started = time.monotonic()
    data_validate(schema=schema, data={"a" * 30: 1})
    with pytest.raises(DataValidationError, match="additional properties are not allowed"):
        data_validate(schema=schema, data={LONG: 1})
    with pytest.raises(DataValidationError, match="expected integer"):
        data_validate(schema=schema, data={"aaa": "x"})
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^(?=a)a$", "invalid perl operator"),
        ("(a)\\1", "invalid escape sequence"),
        ("(a{1000}){1000}", "invalid repetition size"),
    ],
)
def test_patterns_re2_cannot_run_are_refused_with_the_reason(pattern, reason):
    with pytest.raises(SchemaInvalid, match=reason):
        schema_check({"properties": {"x": {"pattern": pattern}}})
    with pytest.raises(SchemaInvalid, match=reason):
        schema_check({"patternProperties": {pattern: {}}})


def test_a_property_named_pattern_is_not_mistaken_for_a_regex():
    schema_check({"properties": {"pattern": {"type": "string"}}})


def test_unevaluated_properties_with_pattern_properties_is_refused():
    with pytest.raises(SchemaInvalid, match="unevaluatedProperties"):
        schema_check({"patternProperties": {"^a": {}}, "unevaluatedProperties": False})


def test_a_stored_schema_with_an_unsupported_pattern_fails_as_a_schema_error():
    with pytest.raises(SchemaInvalid, match="not supported"):
        data_validate(schema={"properties": {"x": {"pattern": "(?<=a)b"}}}, data={"x": "b"})


def _nested(depth: int) -> dict:
    """An object `depth` levels deep as data_depth counts (the innermost value is one)."""
    node: object = 1
    for _ in range(depth - 1):
        node = {"a": node}
    assert isinstance(node, dict)
    return node


def _data_check_answer(data: dict, limits) -> str:
    from reports.validation import data_check_sized

    try:
        data_check_sized(data, limits=limits)
    except Exception as exc:  # the class and the message are the answer
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def _walks_answer(data: dict, limits) -> str:
    """What data_check_sized answered when it always walked the data twice."""
    from reports.validation import data_unstorable_text

    if problem := data_unstorable_text(data):
        return f"DataValidationError: data {problem}, which cannot be stored."
    if data_depth(data, limit=limits.max_nesting_depth) > limits.max_nesting_depth:
        return f"LimitExceeded: data nests deeper than {limits.max_nesting_depth} levels."
    return "ok"


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"customer": "Acme", "items": [{"price": 1.5, "name": "x"}] * 30},
        {"a\x00": 1},
        {"a": ["fine", {"b": "nul \x00 here"}]},
        {"a": ["\ud800"]},
        {"first": "\x00", "second": "\udfff"},
        {"emoji": "\U0001f600 is a pair, not a lone surrogate"},
        {"text": "a backslash then u0000: \\u0000 and \\udc00"},
        {1: "an int key"},
        _nested(10),
        _nested(11),
        {"wide": [[1]] * 40},
        {"deep": _nested(11), "nul": "\x00"},
    ],
)
def test_data_check_answers_as_the_two_walks_did(data):
    from dataclasses import replace

    from reports.limits import limits_from_settings

    limits = replace(limits_from_settings(), max_nesting_depth=10)
    assert _data_check_answer(data, limits) == _walks_answer(data, limits)
    assert _data_check_answer(data, limits_from_settings()) == _walks_answer(
        data, limits_from_settings()
    )


def test_data_check_refuses_past_the_depth_and_keeps_the_depth_at_the_limit():
    from dataclasses import replace

    from reports.limits import limits_from_settings

    limits = replace(limits_from_settings(), max_nesting_depth=10)
    assert _data_check_answer(_nested(10), limits) == "ok"
    assert _data_check_answer(_nested(11), limits).startswith("LimitExceeded")
    assert _data_check_answer({"a": ["\ud800"]}, limits).startswith("DataValidationError")


def test_data_check_sized_gives_the_size_data_validate_would_dump() -> None:
    data = {"name": "Zoë", "items": [{"price": 1.5}], "note": "\u2603"}
    checked, size = data_check_sized(data, limits=DEFAULT_LIMITS)
    assert checked is data
    assert size == len(json.dumps(data).encode("utf-8"))
