"""The one validator: a linear uniqueItems with JSON Schema's equality, and only the first
error computed."""

from __future__ import annotations

import time

import pytest

from reports.schema_validator import schema_first_error
from reports.validation import DataValidationError, data_validate


def _items(count: int) -> list[dict]:
    # Objects that sort cannot order, so jsonschema compared them pairwise (7 s here).
    return [{"id": index, "pad": ["x" * 50] * 20, "tag": {"k": "v"}} for index in range(count)]


def test_unique_items_over_2000_objects_is_linear():
    items = _items(2000)
    started = time.monotonic()
    data_validate(schema={"type": "array", "uniqueItems": True}, data=items)
    with pytest.raises(DataValidationError, match="item 2000 repeats an earlier item"):
        data_validate(schema={"uniqueItems": True}, data=[*items, dict(reversed(items[7].items()))])
    assert time.monotonic() - started < 2  # 7 s pairwise


@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, 1.0], False),  # equal numbers
        ([1, True], True),  # a boolean is not a number
        ([0, False], True),
        ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),  # key order does not matter
        ([[1, 2], [2, 1]], True),  # item order does
        ([[1], [True]], True),
        ([{"a": [1]}, {"a": [1.0]}], False),
        ([None, "null", 0, ""], True),
    ],
)
def test_unique_items_uses_json_schema_equality(items, unique):
    error = schema_first_error(schema={"uniqueItems": True}, data=items, seconds=5)
    assert (error is None) == unique


def test_only_the_first_error_is_computed():
    """100,000 wrong items: the old best_match built every error before choosing one."""
    data = {"values": ["x" * 100] * 100_000}
    schema = {"properties": {"values": {"items": {"type": "integer"}}}}
    started = time.monotonic()
    with pytest.raises(DataValidationError, match=r"values\[0\]: expected integer"):
        data_validate(schema=schema, data=data)
    assert time.monotonic() - started < 2


def test_the_best_cause_inside_an_any_of_is_still_named():
    schema = {
        "properties": {
            "total": {"anyOf": [{"type": "number"}, {"type": "string", "pattern": "^[0-9]+$"}]}
        }
    }
    with pytest.raises(DataValidationError, match="total"):
        data_validate(schema=schema, data={"total": "12a"})
