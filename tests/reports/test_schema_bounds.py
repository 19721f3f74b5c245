"""Schemas whose validation would be super-linear are refused when saved, fast, naming the
bound; the schemas people write (and the built-in samples) are not."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rendering.errors import LimitExceeded
from rendering.limits import Limits
from reports.limits import limits_from_settings
from reports.validation import SchemaInvalid, data_validate, schema_check
from tests.factories import ReportTemplateFactory

SAMPLES = Path(__file__).resolve().parents[2] / "templates" / "samples"


def any_of_chain(depth: int) -> dict:
    """The issue's schema: each level an anyOf of two refs to the level below, so the work
    doubles per level (depth 12 is 873 bytes)."""
    defs: dict = {"d0": {"type": "integer"}}
    for level in range(1, depth + 1):
        below = {"$ref": f"#/$defs/d{level - 1}"}
        defs[f"d{level}"] = {"anyOf": [below, dict(below)]}
    return {"$defs": defs, "$ref": f"#/$defs/d{depth}"}


def data_n_schema(depth: int) -> dict:
    """An object whose property `n` is the chain."""
    chain = any_of_chain(depth)
    return {"type": "object", "$defs": chain["$defs"], "properties": {"n": {"$ref": chain["$ref"]}}}


@pytest.mark.parametrize("depth", [12, 30])
def test_an_any_of_ref_chain_is_refused_at_save_in_milliseconds(depth):
    # The work the check does, in this thread's CPU time: on a shared machine the wall time
    # also counts the waits for a core.
    started = time.thread_time()
    with pytest.raises(SchemaInvalid, match="PDF_SCHEMA_MAX_DEPTH") as caught:
        schema_check(any_of_chain(depth))
    assert time.thread_time() - started < 2
    assert caught.value.http_status == 400


def test_a_wide_shallow_fan_out_is_refused_by_the_expansion_bound():
    """Depth alone lets 10 branches of 10 branches of ... through: the expansion counts."""
    defs: dict = {"d0": {"type": "integer"}}
    for level in range(1, 6):
        defs[f"d{level}"] = {"oneOf": [{"$ref": f"#/$defs/d{level - 1}"}] * 12}
    schema = {"$defs": defs, "$ref": "#/$defs/d5"}
    started = time.thread_time()
    with pytest.raises(SchemaInvalid, match="PDF_SCHEMA_MAX_EXPANSION"):
        schema_check(schema)
    assert time.thread_time() - started < 3  # under 0.1 s


def test_a_ref_cycle_that_never_descends_is_refused():
    schema = {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}}}
    with pytest.raises(SchemaInvalid, match="refers back to itself"):
        schema_check(schema | {"$ref": "#/$defs/a"})


def test_an_unresolvable_local_ref_is_refused_at_save():
    with pytest.raises(SchemaInvalid, match="does not resolve"):
        schema_check({"properties": {"a": {"$ref": "#/$defs/missing"}}})


def test_size_and_node_count_are_bounded():
    limits = Limits(schema_max_bytes=2048, schema_max_nodes=200)
    wide = {"properties": {f"p{i}": {"type": "string"} for i in range(100)}}
    with pytest.raises(SchemaInvalid, match="bytes; the limit is 2048"):
        schema_check(wide, limits=limits)
    many = {"enum": list(range(300))}
    with pytest.raises(SchemaInvalid, match="more than 200 JSON values"):
        schema_check(many, limits=limits)


def test_the_bounds_come_from_settings(settings):
    settings.PDF_SCHEMA_MAX_DEPTH = 40
    schema_check(any_of_chain(12), limits=Limits(schema_max_depth=40, schema_max_expansion=10**6))
    assert limits_from_settings().schema_max_depth == 40


def test_recursive_schemas_that_descend_into_the_data_are_accepted():
    tree = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#"}},
            "left": {"$ref": "#"},
            "right": {"$ref": "#"},
        },
    }
    schema_check(tree)
    data: dict = {"name": "leaf"}
    for level in range(60):
        data = {"name": f"n{level}", "children": [data], "left": {"name": "l"}}
    data_validate(schema=tree, data=data)


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.schema.json")), ids=lambda p: p.stem)
def test_the_built_in_sample_schemas_pass_the_bounds(path):
    schema_check(json.loads(path.read_text()))


def test_an_invoice_schema_with_shared_definitions_passes():
    money = {"type": "number", "minimum": 0}
    schema = {
        "$defs": {
            "money": money,
            "party": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "vat": {"type": "string"}},
            },
            "line": {
                "type": "object",
                "properties": {
                    "price": {"$ref": "#/$defs/money"},
                    "tax": {"anyOf": [{"$ref": "#/$defs/money"}, {"type": "null"}]},
                },
            },
        },
        "type": "object",
        "properties": {
            "seller": {"$ref": "#/$defs/party"},
            "buyer": {"allOf": [{"$ref": "#/$defs/party"}, {"required": ["vat"]}]},
            "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}, "uniqueItems": True},
            "kind": {"oneOf": [{"const": "invoice"}, {"const": "credit"}]},
        },
        "if": {"required": ["kind"], "properties": {"kind": {"const": "credit"}}},
        "then": {"required": ["reason"]},
    }
    schema_check(schema)
    data_validate(schema=schema, data={"seller": {"name": "A"}, "lines": [{"price": 1}]})


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [12, 30])
def test_saving_the_any_of_chain_through_the_api_is_a_fast_400(api, depth):
    body = {
        "slug": f"chain-{depth}",
        "name": "Chain",
        "html": "<p>{{n}}</p>",
        "schema": data_n_schema(depth),
        "sample_data": {"n": "not an integer"},
    }
    started = time.thread_time()  # the test client serves the request in this thread
    response = api.post("/api/v1/templates", body, format="json")
    assert time.thread_time() - started < 2
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_schema"
    assert "PDF_SCHEMA_MAX_DEPTH" in response.json()["error"]


@pytest.mark.django_db
def test_submit_against_a_chain_saved_before_the_bounds_stops_at_the_deadline(api, user):
    """Depth 30 would take days; the validation deadline answers in about a second."""
    ReportTemplateFactory(
        owner=user,
        slug="old-chain",
        schema=data_n_schema(30),
        sample_data={},
    )
    # The CPU this thread spends (the test client runs the view in it): what the deadline
    # bounds. Wall time also counts the waits of a loaded machine (3.6 s once at a load
    # average of 14, with the work itself stopped at the deadline all the same).
    started = time.thread_time()
    response = api.post(
        "/api/v1/generate-pdf-async",
        {"template": "old-chain", "data": {"n": "x"}},
        format="json",
    )
    spent = time.thread_time() - started
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "schema_too_slow"
    assert spent < 3, spent


BRANCHING = {
    "anyOf": [
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "integer"},
    ]
}


def test_recursion_that_reaches_the_same_data_twice_per_level_is_refused():
    with pytest.raises(SchemaInvalid, match=r"reached twice for the same data \(\[\*\]\)"):
        schema_check(BRANCHING)
    union_tree = {
        "oneOf": [
            {"properties": {"kind": {"const": k}, "children": {"items": {"$ref": "#"}}}}
            for k in ("a", "b")
        ]
    }
    with pytest.raises(SchemaInvalid, match="doubles per level"):
        schema_check(union_tree)
    both = {"items": {"$ref": "#"}, "contains": {"$ref": "#"}}  # every item checked twice
    with pytest.raises(SchemaInvalid, match="reached twice"):
        schema_check(both)


def test_recursion_once_per_data_path_is_accepted():
    json_value = {
        "anyOf": [
            {"type": "array", "items": {"$ref": "#"}},
            {"type": "object", "additionalProperties": {"$ref": "#"}},
            {"type": ["string", "number", "boolean", "null"]},
        ]
    }
    schema_check(json_value)
    data_validate(schema=json_value, data={"a": [1, {"b": [None, "x"]}]})
    tree = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
    }
    shared = {"$defs": {"tree": tree}, "properties": {"a": {"$ref": "#/$defs/tree"}}}
    shared["properties"]["b"] = {"$ref": "#/$defs/tree"}  # one tree, reached from two places
    schema_check(shared)


def test_the_deadline_grows_with_the_data_and_stops_a_recursive_fan_out():
    """A schema saved before the recursion check: a few hundred bytes of data would take
    hours, the deadline stops it."""
    branching = BRANCHING
    data: object = "leaf"
    for _ in range(40):
        data = [data]
    limits = Limits(schema_validation_seconds=0.3, schema_validation_seconds_per_mb=0)
    started = time.thread_time()  # the deadline's clock: this thread's CPU time
    with pytest.raises(LimitExceeded, match="PDF_SCHEMA_VALIDATION_MS") as caught:
        data_validate(schema=branching, data=data, limits=limits)
    assert caught.value.code == "schema_too_slow"
    assert time.thread_time() - started < 2.5  # hours without the deadline
