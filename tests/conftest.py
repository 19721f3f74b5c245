"""Fixtures shared by the whole suite: temporary report storage, users, API clients."""

from __future__ import annotations

import gc
import io
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from pypdf import PdfReader
from rest_framework.test import APIClient

from accounts.services import api_key_create
from jobs import dispatch
from runs import dispatch as run_dispatch
from schedules import dispatch as schedule_dispatch
from tests.factories import UserFactory
from tests.livestack import live_stack, settle, stack_env  # noqa: F401 - session fixtures for e2e and browser tests
from tests.markers import in_harness_group
from tests.processes import tail

# Marks implied by fixtures and the xdist groups (tests/markers.py); the flush between
# transactional tests (tests/db_flush.py); the check that a fast-tier test leaves no
# Celery message behind (tests/leftovers.py); test databases copied from one migrated
# template (tests/database_template.py).
pytest_plugins = ["tests.markers", "tests.db_flush", "tests.leftovers", "tests.database_template"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test on the live stack reports the tail of the stack's web and worker logs:
    the stack serves the whole session, and its logs are gone with the run's temporary
    directory by the time anyone reads a CI failure."""
    report = yield
    stack = getattr(item, "funcargs", {}).get("live_stack")
    if report.failed and stack is not None:
        for name in ("worker.log", "web.log"):
            report.sections.append((f"live stack {name}, last 60 lines", tail(stack.logs / name)))
    return report


@pytest.fixture(autouse=True)
def report_storage(settings, tmp_path: Path) -> Path:
    """Every test writes PDFs to its own temporary directory."""
    location = tmp_path / "reports"
    settings.STORAGES = {
        **settings.STORAGES,
        "reports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": location, "allow_overwrite": True},
        },
    }
    return location


@pytest.fixture(autouse=True)
def live_stack_settled(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test on the live stack and a database flushed after it leaves the stack's worker
    idle before the flush (tests/livestack.settle says why). The database fixture is asked
    for first, so that this teardown runs before the flush."""
    if not {"live_stack", "transactional_db"} <= set(request.fixturenames):
        yield
        return
    request.getfixturevalue("transactional_db")
    stack = request.getfixturevalue("live_stack")
    yield
    settle(stack)


@pytest.fixture(scope="session")
def _redis() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(django_settings.REDIS_URL, socket_timeout=5)
    yield client
    client.close()


@pytest.fixture(autouse=True)
def limits_forgotten(_redis: redis.Redis) -> Iterator[None]:
    """A test leaves no rate, quota, stream or lease counter behind: on SQLite the next
    test's user and workspace get the same ids again, and would start out throttled."""
    yield
    keys = list(_redis.scan_iter(f"{django_settings.LIMITS_KEY_PREFIX}*", count=1000))
    if keys:
        _redis.delete(*keys)


class SentTasks:
    """What the code under test sent to the workers, by dispatch function, instead of
    sending it: `sent_tasks.ids("job_enqueue")` are the job ids, in order."""

    def __init__(self) -> None:
        self.calls: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._lock = threading.Lock()  # some tests send from several threads at once

    def recorder(self, name: str) -> Callable[..., bool]:
        def record(**kwargs: Any) -> bool:
            with self._lock:
                self.calls[name].append(kwargs)
            return True  # "published", for the functions that say

        return record

    def ids(self, name: str, key: str = "job_id") -> list[Any]:
        return [call[key] for call in self.calls[name]]


@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> SentTasks:
    """Every `*_enqueue` of the dispatch modules (the jobs', the runs' and the schedules')
    recorded (SentTasks) rather than published."""
    sent = SentTasks()
    for module in (dispatch, run_dispatch, schedule_dispatch):
        for name, function in vars(module).items():
            if name.endswith("_enqueue") and callable(function):
                monkeypatch.setattr(module, name, sent.recorder(name))
    return sent


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def api_key(user) -> str:
    return api_key_create(user=user, name="test")[1]


@pytest.fixture
def api(api_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key)
    return client


def pdf_text(content: bytes) -> tuple[int, str]:
    """Read a PDF back: its page count and all of its text."""
    reader = PdfReader(io.BytesIO(content))
    return len(reader.pages), "\n".join(page.extract_text() or "" for page in reader.pages)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection loaded (Django, every library, the test modules: ~270,000 objects)
    lives until the process ends: frozen, the collector stops walking it at each of the
    run's full collections, as the worker and beat freeze theirs (jobs/worker/signals.py).
    Over 787 in-process tests, twice: the collections' time 10.4 → 8.3 and 5.3 s, the run's
    CPU 59.7 → 58.3 and 58.3 → 53.4 s."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items) -> None:
    """Run tests that start live-stack workers last, so no live worker consumes messages that
    unit tests put on the shared queue. The harness group (tests/markers.py: its own Redis
    and workers) goes first: it runs one test after another in one process, so started
    first it runs beside everything else instead of alone at the end. Within each part the
    `heavy` tests go first, so the longest do not start last."""

    def order(item: pytest.Item) -> tuple[int, bool]:
        # Within each part, the heavy tests first: started last, one (the endless-loop
        # probe, 95 s under load) ran alone for the run's last minute while a core idled.
        light = item.get_closest_marker("heavy") is None
        if in_harness_group(item):
            return 0, light
        return (2 if item.get_closest_marker("e2e") is not None else 1), light

    items.sort(key=order)
    _last_in_their_module(items)


def _last_in_their_module(items: list[pytest.Item]) -> None:
    """A test marked `last_in_module` runs after the rest of its module whatever the random
    order: it ends what the module's tests share (Ctrl-C of the module's `make run`).
    xdist hands a group's tests to its process in this order."""
    for item in [item for item in items if item.get_closest_marker("last_in_module")]:
        items.remove(item)
        after = max((n for n, other in enumerate(items) if other.path == item.path), default=-1)
        items.insert(after + 1 if after >= 0 else len(items), item)
