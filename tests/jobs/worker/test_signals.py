"""Worker signal handlers: caches warmed before the fork, connections kept in the pool."""

from __future__ import annotations

import gc
from types import SimpleNamespace

import pytest
from celery.concurrency.prefork import TaskPool
from celery.concurrency.thread import TaskPool as ThreadTaskPool
from celery.signals import beat_init

from jobs.models import PdfJob
from jobs.worker import signals
from jobs.worker.signals import connections_back_to_the_pool, warm_before_fork
from rendering.glyphs import bundled_code_points
from tests.processes import python_answer

# What a job renders, fills and signs with: the modules that use them import them when
# used, so only a worker (before its pool forks) imports them at start.
RENDER_LIBRARIES = (
    "xhtml2pdf.pisa",
    "reportlab.pdfgen.canvas",
    "pypdf",
    "pikepdf",
    "facturx",
    "pyhanko.sign.signers",
    "pyhanko_certvalidator",
    "playwright.async_api",
    "liquid",
    "docxtpl",
    "pypdfium2",
)


def test_the_fonts_character_maps_are_read_before_the_fork():
    bundled_code_points.cache_clear()
    warm_before_fork()
    assert bundled_code_points.cache_info().currsize == 1
    assert ord("A") in bundled_code_points()


def test_the_libraries_a_job_renders_with_are_imported_before_the_fork(monkeypatch):
    imported: list[bool] = []
    monkeypatch.setattr(signals, "libraries_import", lambda: imported.append(True))
    warm_before_fork()
    assert imported == [True]


@pytest.mark.parametrize(
    ("pool", "imports"),
    [("prefork", True), ("threads", False), (ThreadTaskPool, False), (TaskPool, True)],
)
def test_only_a_worker_that_forks_imports_the_render_libraries(monkeypatch, pool, imports):
    imported: list[bool] = []
    monkeypatch.setattr(signals, "libraries_import", lambda: imported.append(True))
    warm_before_fork(sender=SimpleNamespace(pool_cls=pool))
    assert imported == ([True] if imports else [])


@pytest.mark.process  # a Python of its own: this one imported all of them long ago
def test_the_web_starts_without_the_render_libraries_and_a_worker_imports_them():
    code = (
        "import json, sys; import config.asgi, config.urls; "
        "from rendering.preload import libraries_import; "
        f"names = {list(RENDER_LIBRARIES)!r}; "
        "before = [n for n in names if n in sys.modules]; libraries_import(); "
        "print(json.dumps([before, [n for n in names if n not in sys.modules]]))"
    )
    web_imported, worker_missing = python_answer(code)
    assert web_imported == []
    assert worker_missing == []


def _task(*, eager: bool) -> SimpleNamespace:
    return SimpleNamespace(name="jobs.render_pdf", request=SimpleNamespace(is_eager=eager))


def test_celery_keeps_a_prefork_childs_pool_across_its_tasks(settings, monkeypatch):
    """Celery's Django fixup closed the whole pool of a prefork child before and after every
    task (a new connection and pool per job); CELERY_DB_REUSE_MAX turns that off for longer
    than a child lives."""
    from celery.fixups.django import DjangoWorkerFixup
    from django.db import connection

    from config.celery_app import app

    fixup = DjangoWorkerFixup(app)
    fixup.worker = SimpleNamespace(pool_cls="celery.concurrency.prefork:TaskPool")
    closed: list[str] = []
    monkeypatch.setattr(connection, "close_pool", lambda: closed.append("pool"), raising=False)
    monkeypatch.setattr(connection, "close", lambda: closed.append("connection"))
    for _ in range(settings.CELERY_WORKER_MAX_TASKS_PER_CHILD):
        fixup.on_task_prerun(sender=_task(eager=False))
        fixup.on_task_postrun(sender=_task(eager=False))
    assert closed == []


@pytest.mark.django_db(transaction=True)
def test_a_tasks_connection_goes_back_to_the_pool_after_it():
    from django.db import connection

    connection.ensure_connection()
    connections_back_to_the_pool(task=_task(eager=True))  # the caller's transaction: kept
    assert connection.connection is not None
    connections_back_to_the_pool(task=_task(eager=False))
    # Returned to the pool (PostgreSQL) or closed (no pool, CONN_MAX_AGE 0): either way the
    # next task checks out a usable one.
    assert connection.connection is None
    assert PdfJob.objects.count() == 0


def test_beat_freezes_what_it_loaded_at_start_out_of_the_last_collection():
    # Beat sends no shutdown signal; its start's objects are frozen at beat_init instead, so
    # the interpreter's final collection at Ctrl-C does not walk them (0.4 s of CPU).
    gc.unfreeze()
    try:
        beat_init.send(sender=None)
        assert gc.get_freeze_count() > 10_000  # Django, the apps and Celery at least
    finally:
        gc.unfreeze()


@pytest.fixture
def collector_thresholds():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def _young_collections_of_renders(renders: int) -> int:
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files("invoice")
    source = TemplateSource(engine="handlebars", html=html, css=css)
    options, limits = parse_options({}), limits_from_settings()
    report_render(source=source, data=data, options=options, limits=limits)  # warm
    young: list[int] = []

    def counted(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 0:
            young.append(1)

    gc.callbacks.append(counted)
    try:
        for _ in range(renders):
            report_render(source=source, data=data, options=options, limits=limits)
    finally:
        gc.callbacks.remove(counted)
    return len(young)


def test_a_pool_child_collects_its_young_objects_a_few_times_per_render_not_every_700(
    collector_thresholds,
):
    # CPython's 700: ~4 young collections a one-page render, 1.5-1.9 ms of its CPU.
    gc.set_threshold(700, *gc.get_threshold()[1:])
    assert _young_collections_of_renders(3) >= 6
    signals.fewer_young_collections()
    assert gc.get_threshold()[0] == signals.CHILD_YOUNG_GENERATION
    assert _young_collections_of_renders(3) <= 2


def test_the_thresholds_change_when_a_pool_child_starts():
    # worker_process_init: sent in a forked pool child only, never in the web or a thread pool.
    from celery.signals import worker_process_init

    receivers = [ref() for _, ref in worker_process_init.receivers]
    assert signals.fewer_young_collections in receivers
