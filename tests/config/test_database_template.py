"""Test databases copied from one migrated template (tests/database_template.py): a second
run copies the template the first made instead of migrating again, templates of other
migrations are dropped, and no copy is left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from urllib.parse import urlsplit

import pytest
from django.db import connection

from tests import database_template
from tests.database_template import template_name
from tests.processes import BASE_DIR, database_url_for_tests, service_missing

pytestmark = [pytest.mark.process, pytest.mark.timeout(180)]

# One quick test that uses the database.
A_DATABASE_TEST = "tests/accounts/test_services.py::test_key_is_stored_only_as_a_digest"


def test_template_name_is_one_for_every_process_and_names_the_migrations(tmp_path, monkeypatch):
    assert template_name("test_x_gw0") == template_name("test_x_gw3") == template_name("test_x")
    assert template_name("test_x").startswith("test_x_tpl_")
    names = [name for name, _ in database_template.migration_files()]
    assert "reports/0001_create_report_template.py" in names
    assert "django_celery_results/0001_initial.py" in names  # a library's migrations count
    migration = tmp_path / "0001_initial.py"
    migration.write_text("operations = []\n")
    monkeypatch.setattr(database_template, "migration_files", lambda: [("app/0001", migration)])
    before = template_name("test_x")
    migration.write_text("operations = ['changed']\n")
    assert template_name("test_x") != before


def _databases() -> dict[str, int]:
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute("SELECT datname, oid FROM pg_database")
        return dict(cursor.fetchall())


def _drop(*names: str) -> None:
    with connection.creation._nodb_cursor() as cursor:
        for name in names:
            cursor.execute(
                f"DROP DATABASE IF EXISTS {connection.ops.quote_name(name)} WITH (FORCE)"
            )


def _run_a_test(database: str) -> None:
    server = database_url_for_tests().rsplit("/", 1)[0]
    env = {**os.environ, "DATABASE_URL": f"{server}/{database}"}
    env.pop("PYTEST_XDIST_WORKER", None)  # a run of its own, not a share of this one's
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:randomly", A_DATABASE_TEST],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_a_second_run_copies_the_template_the_first_made_and_drops_stale_ones(
    django_db_setup, django_db_blocker
):
    with django_db_blocker.unblock():
        _second_run_copies_the_template()


def _second_run_copies_the_template() -> None:
    if connection.vendor != "postgresql":
        service_missing(
            "the template databases are PostgreSQL's: set "
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/pdfreports (.ci/run starts it)"
        )
    # A run of one process on this run's database finds the template this run made (or
    # makes it, after a --reuse-db run); a name of its own where that copy would be ours.
    database = urlsplit(os.environ["DATABASE_URL"]).path.lstrip("/")
    if f"test_{database}" == connection.settings_dict["NAME"]:
        database = f"tpl{uuid.uuid4().hex[:10]}"
    copy = f"test_{database}"
    template = template_name(copy)
    stale = f"{copy}_tpl_000000000000"
    try:
        if template not in _databases():
            _run_a_test(database)
        made = _databases()[template]
        _drop(stale)
        with connection.creation._nodb_cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {connection.ops.quote_name(stale)}")

        _run_a_test(database)
        after = _databases()
        assert after[template] == made  # the same template, not made again
        assert stale not in after  # another migrations' template dropped
        assert copy not in after  # the run's copy dropped at its end
    finally:
        _drop(copy, stale)
        if database.startswith("tpl"):
            _drop(template, f"{template}_making")
