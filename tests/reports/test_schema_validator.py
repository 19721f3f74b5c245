"""The one validator: a linear uniqueItems with JSON Schema's equality, and only the first
error computed."""

from __future__ import annotations

import threading
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


def test_the_deadline_counts_the_checks_own_cpu_not_a_busy_machine():
    """On a busy host the validating thread waits for the CPU (here: for the GIL, held by
    sixteen busy threads), so a check that needs a few tens of milliseconds takes far longer
    than its budget in wall time. A wall-clock deadline refused such valid data; the budget
    is the thread's CPU time."""
    items = [{"id": index, "name": "x" * 20, "tags": ["a", "b"]} for index in range(2000)]
    schema = {
        "type": "array",
        "items": {
            "type": "object",
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
