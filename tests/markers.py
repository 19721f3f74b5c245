"""The markers that keep a test out of the everyday tier (`make test-fast`), and the ones a
test gets from what it asks for, so nobody has to remember to mark it (a plugin: the root
conftest lists it in `pytest_plugins`)."""

from __future__ import annotations

from typing import Any

import pytest
from _pytest.nodeid import coerce_node_id

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
        node_id_unique(item)
        marks_from_fixtures(item)
        node_id_grouped(item)


def node_id_unique(item: Any) -> None:
    """schemathesis names each operation's test `test_x[GET /api/v1/jobs]` but gives all of
    them the node id `...::test_x`; pytest-xdist's group scheduling keys its work by node id,
    so all but one of them were silently not run. The name goes into the node id (as
    pytest-xdist itself does for its groups)."""
    head, _, last = item.nodeid.rpartition("::")
    if item.name != last and item.name.startswith(f"{last}["):
        _node_id_set(item, f"{head}::{item.name}")


def node_id_grouped(item: Any) -> None:
    """pytest-xdist's loadgroup scheduling reads a test's group from an `@group` suffix of its
    node id, which its own hook writes to `item._nodeid`; pytest 9 keeps the id in `item._id`
    and ignores `_nodeid`, so the suffix is written here, where it counts."""
    groups = sorted({str(mark.args[0]) for mark in item.iter_markers("xdist_group") if mark.args})
    if groups and "@" not in item.nodeid:
        _node_id_set(item, f"{item.nodeid}@{'_'.join(groups)}")


def _node_id_set(item: Any, node_id: str) -> None:
    item._id = coerce_node_id(node_id)


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
