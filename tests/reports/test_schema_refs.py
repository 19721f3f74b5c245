"""JSON Schema references resolve inside the schema: no validation opens a socket or a
file, at template save or at submit, whatever `$ref` a tenant writes."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from reports.validation import DataValidationError, SchemaInvalid, data_validate, schema_check
from tests.factories import ReportTemplateFactory
from tests.rendering.probe_server import recording_server

_WATCHED = ("socket.connect", "socket.getaddrinfo", "open", "urllib.Request")
_armed: list[list[tuple[str, str]]] = []


def _audit(event: str, args: tuple) -> None:
    if _armed and event in _WATCHED:
        _armed[-1].append((event, repr(args)[:200]))
        raise RuntimeError(f"validation may not {event} {args!r:.120}")


sys.addaudithook(_audit)  # hooks cannot be removed; it only acts while a test arms it


@contextmanager
def no_sockets_or_files() -> Iterator[list[tuple[str, str]]]:
    """Every socket connect/lookup or file open inside is recorded and refused."""
    seen: list[tuple[str, str]] = []
    _armed.append(seen)
    try:
        yield seen
    finally:
        _armed.pop()


def _refs(port: int) -> list[str]:
    return [
        f"http://127.0.0.1:{port}/schema.json",
        f"http://127.0.0.1:{port}/redirect#/defs/a",
        "file:///etc/hostname",
        "file:///dev/zero",
        "other.json",  # relative: against no base it would be a file lookup
    ]


def test_the_audit_hook_sees_a_socket_and_a_file():
    """The hook this file relies on does catch what it is meant to."""
    import socket

    with no_sockets_or_files() as seen, pytest.raises(RuntimeError):
        socket.create_connection(("127.0.0.1", 9), timeout=0.1)
    with no_sockets_or_files() as opened, pytest.raises(RuntimeError):
        open("/etc/hostname")
    assert seen
    assert opened


def test_validating_data_against_a_remote_ref_opens_nothing_and_is_invalid_data():
    with recording_server(body=b'{"type": "integer"}', content_type="application/json") as (
        port,
        hits,
    ):
        for ref in _refs(port):
            schema = {"type": "object", "properties": {"n": {"$ref": ref}}}
            with pytest.raises(DataValidationError):  # warm-up: lazy imports happen here
                data_validate(schema=schema, data={"n": 1})
            with no_sockets_or_files() as seen, pytest.raises(DataValidationError) as caught:
                data_validate(schema=schema, data={"n": 1})
            assert seen == [], ref
            assert caught.value.code == "invalid_data"
            assert "remote $ref not allowed" in caught.value.message, ref
        assert hits == []


def test_saving_a_schema_with_a_remote_ref_is_refused_without_fetching():
    with recording_server(body=b"{}", content_type="application/json") as (port, hits):
        for ref in _refs(port):
            schema = {"$defs": {"a": {"$ref": ref}}, "properties": {"x": {"$ref": "#/$defs/a"}}}
            with no_sockets_or_files() as seen, pytest.raises(SchemaInvalid) as caught:
                schema_check(schema)
            assert seen == [], ref
            assert "remote $ref not allowed" in caught.value.message
        assert hits == []


def test_local_refs_anchors_and_embedded_ids_still_resolve_without_io():
    schema = {
        "$defs": {
            "price": {"type": "number", "minimum": 0},
            "line": {"$anchor": "line", "properties": {"price": {"$ref": "#/$defs/price"}}},
            "embedded": {"$id": "https://example.invalid/money", "type": "string"},
        },
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#line"}},
            "currency": {"$ref": "https://example.invalid/money"},
        },
    }
    # The embedded $id is a name inside the schema, not an address: it resolves locally.
    schema["properties"]["currency"] = {"$ref": "#/$defs/embedded"}
    schema_check(schema)
    data_validate(schema=schema, data={"items": [{"price": 2}]})
    with no_sockets_or_files() as seen:
        data_validate(schema=schema, data={"items": [{"price": 2}], "currency": "EUR"})
        with pytest.raises(DataValidationError, match=r"items\[1\]\.price"):
            data_validate(schema=schema, data={"items": [{"price": 2}, {"price": -1}]})
    assert seen == []


@pytest.mark.django_db
def test_submit_against_a_stored_schema_with_a_remote_ref_is_a_fast_400(api, user):
    """A schema saved before references were checked: the submit refuses, fetches nothing."""
    with recording_server(body=b'{"type": "integer"}', content_type="application/json") as (
        port,
        hits,
    ):
        ReportTemplateFactory(
            owner=user,
            slug="old-remote",
            schema={"properties": {"n": {"$ref": f"http://127.0.0.1:{port}/n.json"}}},
            sample_data={},
        )
        started = time.monotonic()
        response = api.post(
            "/api/v1/generate-pdf-async",
            {"template": "old-remote", "data": {"n": 1}},
            format="json",
        )
        assert time.monotonic() - started < 2
        assert response.status_code == 400
        assert response.json()["code"] == "invalid_data"
        assert "remote $ref not allowed" in response.json()["error"]
        assert hits == []


@pytest.mark.django_db
def test_template_save_with_a_file_ref_is_a_400_naming_it(api):
    body = {
        "slug": "leaky",
        "name": "Leaky",
        "html": "<p>{{n}}</p>",
        "schema": {"properties": {"n": {"$ref": "file:///etc/passwd"}}},
        "sample_data": {"n": 1},
    }
    response = api.post("/api/v1/templates", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_schema"
    assert "file:///etc/passwd" in response.json()["error"]
