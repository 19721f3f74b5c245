"""Template data checked against JSON Schema, with messages that name the failing path."""

from __future__ import annotations

import pytest

from reports.validation import (
    DataValidationError,
    SchemaInvalid,
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
