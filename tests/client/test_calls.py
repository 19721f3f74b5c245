"""The requests both clients send, built without a service."""

from __future__ import annotations

import pytest

from pdfreports import calls


def test_a_submit_names_its_fields_and_carries_an_idempotency_key() -> None:
    call = calls.job_submit("invoice", {"data": {"n": 1}, "idempotency_key": "k-1"})
    assert (call.method, call.idempotent) == ("POST", True)
    assert call.request["json"] == {"data": {"n": 1}, "template": "invoice"}
    assert call.request["headers"] == {"Idempotency-Key": "k-1"}


def test_a_misspelt_submit_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="dta"):
        calls.job_submit("invoice", {"dta": {"n": 1}})  # type: ignore[typeddict-unknown-key]
