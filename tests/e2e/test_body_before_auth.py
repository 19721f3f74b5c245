"""On the real web process: a caller with no valid key or session cannot make it read a
large body (401 before a byte is read); the same body from a known caller is served."""

from __future__ import annotations

import httpx
import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_a_large_body_needs_a_known_caller(live_stack, http):
    body = {"html_template": "<p>{{n}}</p>", "data": {"n": 1, "pad": "x" * 300_000}}
    for headers in ({}, {"X-API-Key": "rk_0123456789ab_forged"}):
        refused = httpx.post(
            live_stack.url("/api/v1/generate-pdf-async"), json=body, headers=headers, timeout=30
        )
        assert refused.status_code == 401
        assert refused.json()["code"] == "not_authenticated"
    accepted = http.post("/api/v1/generate-pdf-async", json=body)
    assert accepted.status_code == 202, accepted.text
    # A small body is read without credentials, and then refused by the API itself.
    small = httpx.post(live_stack.url("/api/v1/generate-pdf-async"), json={"data": {}}, timeout=30)
    assert small.status_code == 401
    assert "request body over" not in small.json()["error"]
    assert "request body over" in refused.json()["error"]
