"""The markers that keep a test out of the everyday tier (`make test-fast`), and the ones a
test gets from what it asks for, so nobody has to remember to mark it."""

from __future__ import annotations

from typing import Any

import pytest

# A test with any of these starts a process, browser, container or network namespace.
# `heavy` ones only burn CPU: a 50-page sample, hundreds of charts, every migration.
TIER_MARKERS = ("e2e", "chaos", "browser", "multihost", "container", "process", "heavy")
FAST_TIER = "not (" + " or ".join(TIER_MARKERS) + ")"

# Fixtures that start a process of their own: the live stack (uvicorn and a worker), the
# chaos harness (a Redis, workers, beat), the OpenID provider (node).
PROCESS_FIXTURES = frozenset({"live_stack", "chaos", "oidc_provider", "provider_install"})


def marks_from_fixtures(item: Any) -> None:
    """`process` for a test whose fixtures start one or that renders with Chromium (a
    renderer parameter); one xdist group for the multi-host tests, which share the fixed
    namespace names and subnets of tests/multihost."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if PROCESS_FIXTURES.intersection(item.fixturenames) or "chromium" in params.values():
        item.add_marker(pytest.mark.process)
    if item.get_closest_marker("multihost") is not None:
        item.add_marker(pytest.mark.xdist_group("multihost"))
