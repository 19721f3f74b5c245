"""End-to-end helpers: an integrator with an API key, an HTTP client on the live stack
(tests/livestack.py, shared with the browser tests), polling and SSE parsing."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accounts.services import api_key_create
from tests.chaos.conftest import chaos  # noqa: F401 - a Redis and workers of a test's own
from tests.factories import UserFactory


@pytest.fixture
def integrator(transactional_db) -> tuple[Any, str]:
    user = UserFactory(username="integrator")
    return user, api_key_create(user=user, name="e2e")[1]


@pytest.fixture
def http(live_stack, integrator) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=live_stack.base_url, headers={"X-API-Key": integrator[1]}, timeout=30
    ) as client:
        yield client


def wait_for_status(
    client: httpx.Client, status_url: str, *, until: set[str], timeout: float = 60
) -> dict[str, Any]:
    """Poll the status URL the way the seed's client does, until a terminal status."""
    deadline = time.monotonic() + timeout
    seen: dict[str, Any] = {}
    while time.monotonic() < deadline:
        seen = client.get(status_url).json()
        if seen["status"] in until:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"job did not reach {until} in {timeout}s; last: {json.dumps(seen)}")


def read_sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Parse a Server-Sent Events stream into its data payloads (comments are skipped)."""
    data: list[str] = []
    event_id = None
    for line in lines:
        if line == "":
            if data:
                payload = json.loads("\n".join(data))
                payload["_id"] = event_id
                yield payload
            data, event_id = [], None
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line.startswith("id:"):
            event_id = line[3:].strip()
