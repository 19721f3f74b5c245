"""The markers that keep a test out of the everyday tier (`make test-fast`), and the ones a
test gets from what it asks for, so nobody has to remember to mark it (a plugin: the root
conftest lists it in `pytest_plugins`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.nodeid import coerce_node_id

# A test with any of these starts a process, browser, container or network namespace.
# `heavy` ones only burn CPU: a 50-page sample, hundreds of charts, every migration.
TIER_MARKERS = ("e2e", "chaos", "browser", "multihost", "container", "process", "heavy")
FAST_TIER = "not (" + " or ".join(TIER_MARKERS) + ")"

# Fixtures that start a process of their own: the live stack (uvicorn and a worker), the
# warm LibreOffice of the office tests (office_limits), the
# chaos harness (a Redis, workers, beat), the OpenID provider (node).
PROCESS_FIXTURES = frozenset(
    {"live_stack", "chaos", "oidc_provider", "provider_install", "office_limits"}
)
HARNESS_GROUP = "harness"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[Any]) -> None:
    """First: pytest-xdist reads the groups in its own hook (and `-m` deselects) after."""
    for item in items:
        multihost_placed(item)
        node_id_unique(item)
        marks_from_fixtures(item)
        node_id_grouped(item)


MULTIHOST_DIR = "tests/multihost/"


def multihost_placed(item: Any) -> None:
    """`make test-multihost` collects only tests/multihost (collecting the whole suite to
    select five tests cost its phase ~20 s): a multi-host test anywhere else would never
    run, so it stops the collection instead."""
    if item.get_closest_marker("multihost") is not None and not item.nodeid.startswith(
        MULTIHOST_DIR
    ):
        raise pytest.UsageError(
            f"{item.nodeid} is marked multihost but make test-multihost collects only "
            f"{MULTIHOST_DIR}: move it there"
        )


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
    chromium_case = "chromium" in params.values() or "chromium" in _case_ids(item)
    if PROCESS_FIXTURES.intersection(item.fixturenames) or chromium_case:
        item.add_marker(pytest.mark.process)
    if "chaos" in item.fixturenames or item.get_closest_marker("multihost") is not None:
        item.add_marker(pytest.mark.xdist_group(HARNESS_GROUP))


def _case_ids(item: Any) -> list[str]:
    """A parametrized case's ids (`[weasyprint-chromium]`): a renderer module passed as a
    parameter is named by its id, not by a string value."""
    callspec = getattr(item, "callspec", None)
    return callspec.id.split("-") if callspec is not None else []


def in_harness_group(item: Any) -> bool:
    return any(mark.args[:1] == (HARNESS_GROUP,) for mark in item.iter_markers("xdist_group"))


# What a fast-tier test must not start: a browser (Playwright's node driver), a warm
# LibreOffice, a server of its own. Short command-line tools (pdftotext, qpdf) and the
# isolated template children every render uses are not counted.
_SERVERS = ("node", "moto_server", "office_bridge.py", "uvicorn", "celery", "redis-server")
_started: list[str] = []
_watching: list[bool] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _watching or event != "subprocess.Popen":
        return
    argv = args[1] if isinstance(args[1], list | tuple) else [args[1]]
    names = {Path(str(part)).name for part in [args[0], *argv[:4]] if part}
    _started.extend(sorted(names.intersection(_SERVERS)))


sys.addaudithook(_audit)  # for the life of the process; it records only while watching


def in_fast_tier(item: Any) -> bool:
    return not any(item.get_closest_marker(name) for name in TIER_MARKERS)


def _noting(
    method: Callable[..., Any], what: str, ran: Callable[[Any], bool], used: list[str]
) -> Callable[..., Any]:
    """`method`, noting `what` in `used` when the service `ran` after the call."""

    def noted(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        finally:
            if ran(self):
                used.append(what)

    return noted


@pytest.fixture(autouse=True)
def fast_tier_starts_nothing(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test without a tier marker that renders in Chromium or LibreOffice, or starts a
    server, fails and says which marker it needs: the fast tier stays what it claims, and a
    warm browser that an earlier test left does not hide the next one's use of it."""
    if not in_fast_tier(request.node):
        yield
        return
    from rendering.office_service import OfficeService
    from rendering.renderers.chromium_browser import ChromiumService

    used: list[str] = []
    patch = pytest.MonkeyPatch()
    # A warm browser or LibreOffice that ran for this call, whoever started it (the first
    # test to render starts it; the next ones reuse it, so they start nothing themselves).
    for cls, method, what, ran in (
        (ChromiumService, "run", "Chromium", lambda service: service.launches > 0),
        (OfficeService, "convert", "LibreOffice", lambda service: service._process is not None),
    ):
        patch.setattr(cls, method, _noting(getattr(cls, method), what, ran, used))
    _started.clear()
    _watching.append(True)
    try:
        yield
    finally:
        _watching.clear()
        patch.undo()
    what = sorted(set(used) | set(_started))
    if what:
        pytest.fail(
            f"this test uses {', '.join(what)} but has no tier marker: mark it "
            "`pytest.mark.process` (tests/markers.py) so `make test-fast` stays free of them"
        )
