"""The one validator: a linear uniqueItems with JSON Schema's equality, and only the first
error computed."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.exceptions import best_match

from rendering.cpu_budget import CpuBudget
from reports.samples import SAMPLES, sample_files, sample_schema
from reports.schema_refs import REGISTRY
from reports.schema_validator import (
    TenantSchemaValidator,
    ValidationDeadline,
    data_surely_valid,
    schema_first_error,
)
from reports.validation import DataValidationError, data_validate


def _items(count: int) -> list[dict]:
    # Objects that sort cannot order, so jsonschema compared them pairwise (7 s here).
    return [{"id": index, "pad": ["x" * 50] * 20, "tag": {"k": "v"}} for index in range(count)]


def test_unique_items_over_2000_objects_is_linear():
    items = _items(2000)
    # This thread's CPU time, the work the check does: wall time also counts the other
    # processes of a loaded machine (2.6 s once, four test processes on two cores).
    started = time.thread_time()
    data_validate(schema={"type": "array", "uniqueItems": True}, data=items)
    with pytest.raises(DataValidationError, match="item 2000 repeats an earlier item"):
        data_validate(schema={"uniqueItems": True}, data=[*items, dict(reversed(items[7].items()))])
    assert time.thread_time() - started < 2  # 7 s pairwise


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


def test_the_deadline_counts_the_checks_own_cpu_not_a_busy_machine():
    """On a busy host the validating thread waits for the CPU (here: for the GIL, held by
    sixteen busy threads), so a check that needs a few tens of milliseconds takes far longer
    than its budget in wall time. A wall-clock deadline refused such valid data; the budget
    is the thread's CPU time. The schema has a keyword the walk leaves to jsonschema
    (`minProperties`), whose check of valid data is slow enough here; the walk's budget is
    the same CpuBudget."""
    items = [{"id": index, "name": "x" * 20, "tags": ["a", "b"]} for index in range(2000)]
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "minProperties": 0,
            "properties": {
                "id": {"type": "integer", "minimum": 0},
                "name": {"type": "string", "maxLength": 50},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["id", "name"],
        },
    }
    budget = 0.3
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(1000))

    threads = [threading.Thread(target=busy) for _ in range(16)]
    for thread in threads:
        thread.start()
    try:
        cpu, wall = time.thread_time(), time.monotonic()
        error = schema_first_error(schema=schema, data=items, seconds=budget)
        cpu, wall = time.thread_time() - cpu, time.monotonic() - wall
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert wall > budget  # the situation: a wall-clock deadline would have refused the data
    assert cpu < budget
    assert error is None
    items[3]["id"] = "three"
    with pytest.raises(DataValidationError, match=r"^\[3\]\.id: expected integer"):
        data_validate(schema=schema, data=items)


# The walk that answers "valid" without jsonschema (data_surely_valid) must never say so
# where jsonschema finds an error: every error, its message and path, stays jsonschema's.

_KEYS = ["a", "b", "c", "items", "x"]
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 1.5, -2.5, 2.0])
    | st.text(alphabet="aAbZ1-", max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(_KEYS), children, max_size=4)
    ),
    max_leaves=12,
)
_type_names = st.sampled_from(["object", "array", "string", "number", "integer", "boolean", "null"])
_keyword_values: dict[str, st.SearchStrategy[Any]] = {
    "type": _type_names | st.lists(_type_names, max_size=3) | st.just("date"),
    "required": st.lists(st.sampled_from(_KEYS), max_size=3),
    "minItems": st.integers(0, 3),
    "maxItems": st.integers(0, 3),
    "minLength": st.integers(0, 3),
    "maxLength": st.integers(0, 3),
    "pattern": st.sampled_from(["^[a-z]+$", "A", "^$", "[0-9]"]),
    "minimum": st.integers(-2, 2) | st.just(0.5),
    "maximum": st.integers(-2, 2) | st.just(1.5),
    "exclusiveMinimum": st.integers(-2, 2),
    "exclusiveMaximum": st.integers(-2, 2),
    "enum": st.lists(_json_values, max_size=3),
    "title": st.text(max_size=3),
    "format": st.sampled_from(["date", "email"]),
}
# Keywords the walk leaves to jsonschema, and a subschema naming a draft.
_other_keywords = st.sampled_from(
    [
        ("const", "a"),
        ("$schema", "http://json-schema.org/draft-07/schema#"),
        ("minProperties", 1),
        ("prefixItems", [{"type": "string"}]),
        ("anyOf", [{"type": "string"}, {"maxLength": 1}]),
    ]
)


def _schemas() -> st.SearchStrategy[Any]:
    # A few keywords a subschema, so that data often passes all but one of them.
    known = st.lists(st.sampled_from(sorted(_keyword_values)), max_size=3, unique=True).flatmap(
        lambda names: st.fixed_dictionaries({name: _keyword_values[name] for name in names})
    )
    other = st.tuples(known, _other_keywords).map(lambda pair: {**pair[0], **dict([pair[1]])})
    leaf = known | known | known | other | st.booleans()

    def nested(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.fixed_dictionaries(
            {},
            optional={
                "type": _keyword_values["type"],
                "required": _keyword_values["required"],
                "properties": st.dictionaries(st.sampled_from(_KEYS), children, max_size=3),
                "additionalProperties": st.booleans() | children,
                "items": children,
                "minItems": _keyword_values["minItems"],
                "enum": _keyword_values["enum"],
            },
        )

    return st.recursive(leaf, nested, max_leaves=8)


def _jsonschema_first_error(schema: Any, data: Any) -> Any:
    """What schema_first_error answered before the walk: jsonschema's first error."""
    validator = TenantSchemaValidator(schema, registry=REGISTRY)
    first = next(iter(validator.iter_errors(data)), None)
    return None if first is None else best_match([first])


def _outcome(check: Any) -> Any:
    try:
        error = check()
    except Exception as exc:  # a malformed schema: the same exception either way
        return ("raised", type(exc))
    if error is None:
        return None
    return (error.message, list(error.absolute_path), error.validator)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=_schemas().filter(lambda s: isinstance(s, dict)), data=_json_values)
def test_the_walk_answers_as_jsonschema(schema, data):
    expected = _outcome(lambda: _jsonschema_first_error(schema, data))
    assert _outcome(lambda: schema_first_error(schema=schema, data=data, seconds=5)) == expected
    if data_surely_valid(schema, data, CpuBudget(5, time.thread_time)):
        assert expected is None


@pytest.mark.parametrize(
    ("schema", "data"),
    [
        ({"enum": [1]}, True),  # true is not 1
        ({"enum": [True]}, 1),
        ({"enum": ["a"]}, "a"),
        ({"type": "integer"}, 2.0),  # a whole float is an integer
        ({"type": "integer"}, 2.5),
        ({"type": "number"}, False),  # a boolean is not a number
        ({"minimum": 3}, True),
        ({"type": "object", "required": ["a"]}, {}),
        ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}),
        ({"additionalProperties": {"type": "string"}}, {"a": 1}),
        ({"items": False}, []),
        ({"items": False}, [1]),
        ({"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}}, {"a": 1}),
        ({"type": "nothing"}, 1),
        ({"type": ["string", "nothing"]}, "a"),  # jsonschema stops at the first match
        ({"type": ["nothing", "string"]}, "a"),
        ({"type": ["integer", "nothing"]}, 2.0),
        ({"enum": None}, 1),  # saved before the meta-schema check: jsonschema's TypeError
        ({"type": None}, 1),
        ({"pattern": "(a)\\1"}, "aa"),  # RE2 refuses it: jsonschema's answer
        ({"properties": {"x": {"pattern": "^[A-Z]{3}$"}}}, {"x": "usd"}),
    ],
)
def test_the_walk_answers_as_jsonschema_on_the_edges(schema, data):
    expected = _outcome(lambda: _jsonschema_first_error(schema, data))
    assert _outcome(lambda: schema_first_error(schema=schema, data=data, seconds=5)) == expected


@pytest.mark.parametrize("name", [sample.slug for sample in SAMPLES])
def test_the_samples_are_checked_by_the_walk(name):
    """The walk knows every keyword the samples' schemas use, so a submit by slug of a
    sample never builds a jsonschema validator for valid data."""
    schema = sample_schema(name)
    if not schema:
        pytest.skip("no schema")
    data = sample_files(name)[2]
    assert data_surely_valid(schema, data, CpuBudget(5, time.thread_time))
    assert _jsonschema_first_error(schema, data) is None


def test_the_walk_stops_at_the_deadline():
    schema = sample_schema("invoice")
    with pytest.raises(ValidationDeadline):
        schema_first_error(schema=schema, data=sample_files("invoice")[2], seconds=0)
