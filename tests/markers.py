"""The markers that keep a test out of the everyday tier (`make test-fast`), and the ones a
test gets from what it asks for, so nobody has to remember to mark it (a plugin: the root
conftest lists it in `pytest_plugins`)."""

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
HARNESS_GROUP = "harness"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[Any]) -> None:
    """First: pytest-xdist reads the groups in its own hook (and `-m` deselects) after."""
    for item in items:
        marks_from_fixtures(item)


def marks_from_fixtures(item: Any) -> None:
    """`process` for a test whose fixtures start one or that renders with Chromium (a
    renderer parameter). The tests that run a harness of their own (the chaos fixture's Redis
    and workers, the multi-host namespaces with their fixed names and subnets, `make run`
    itself) form one xdist group: they run one after another in one test process, never two
    harnesses at once, while the other process runs everything else."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if PROCESS_FIXTURES.intersection(item.fixturenames) or "chromium" in params.values():
        item.add_marker(pytest.mark.process)
    if "chaos" in item.fixturenames or item.get_closest_marker("multihost") is not None:
        item.add_marker(pytest.mark.xdist_group(HARNESS_GROUP))


def in_harness_group(item: Any) -> bool:
    return any(mark.args[:1] == (HARNESS_GROUP,) for mark in item.iter_markers("xdist_group"))
