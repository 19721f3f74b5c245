"""Test databases cloned from one migrated template (a pytest plugin: tests/conftest.py
lists it in `pytest_plugins`).

pytest-django makes each test process's database by running every migration into it: four
processes side by side ran them four times at the start of a run (each ~4 s of Python and
as much of PostgreSQL's CPU on a loaded machine), and the multi-host part three times more,
~20 s of its 80. On PostgreSQL the first process now migrates a template database once,
named for a digest of the migrations (and Django's version), and every process copies it
(`CREATE DATABASE ... TEMPLATE`, the copy Django's own parallel runner makes): the later
parts of a run, and later runs on the same server, find the template made. A change to any
migration names a new template; the old ones are dropped when nothing is copying them.

With `--reuse-db`, on SQLite, or without migrations, pytest-django's own setup runs as
before."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import django
import pytest
from django.apps import apps
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.backends.base.base import BaseDatabaseWrapper
from pytest_django.fixtures import _get_databases_for_setup
from pytest_django.plugin import DjangoDbBlocker

# Any number of our own, the same in every process: it serialises the template's making.
_LOCK = 0x7064_6672  # "pdfr"


def migration_files() -> list[tuple[str, Path]]:
    """Every installed app's migration files, ours and the libraries' (an upgrade of one
    of them changes its migrations), each named by its app's label."""
    return [
        (f"{app.label}/{path.name}", path)
        for app in apps.get_app_configs()
        for path in sorted((Path(app.path) / "migrations").glob("*.py"))
    ]


def template_name(test_name: str) -> str:
    """`test_x_gw1` -> `test_x_tpl_<digest>`: one template for the processes of a run and
    for every run whose migrations are the same."""
    digest = hashlib.sha256(django.get_version().encode())
    for name, path in migration_files():
        digest.update(name.encode())
        digest.update(path.read_bytes())
    base = re.sub(r"_gw\d+$", "", test_name)
    return f"{base}_tpl_{digest.hexdigest()[:12]}"


def _disconnect() -> None:
    """Close this process's connections to its database, the pool's included (a pooled
    `close()` only hands the connection back): renaming or dropping a database needs it
    to have no session."""
    connection.close()
    # Only a pool that exists: asking for `connection.pool` would open a new one.
    if connection.alias in getattr(connection, "_connection_pools", {}):
        connection.close_pool()  # type: ignore[attr-defined]


@contextmanager
def _server(wrapper: BaseDatabaseWrapper) -> Iterator[Any]:
    """A cursor on the server's maintenance database (autocommit: CREATE DATABASE cannot
    run in a transaction) holding the template lock, so that one process makes the
    template while the others wait, and one copies it at a time (a copy needs the template
    to have no other session)."""
    with wrapper.creation._nodb_cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("SELECT pg_advisory_lock(%s)", [_LOCK])
        try:
            yield cursor
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_LOCK])


def _template_make(cursor: Any, template: str, verbosity: int) -> None:
    """Migrate a database under a working name, then rename it: a run killed halfway leaves
    no template that looks whole. Django's own test-database creation does the migrating."""
    quote = connection.ops.quote_name
    working = f"{template}_making"
    cursor.execute(f"DROP DATABASE IF EXISTS {quote(working)} WITH (FORCE)")
    test_settings = connection.settings_dict["TEST"]
    kept_name, kept_test_name = connection.settings_dict["NAME"], test_settings.get("NAME")
    test_settings["NAME"] = working
    try:
        connection.creation.create_test_db(
            verbosity=verbosity, autoclobber=True, serialize=False, keepdb=False
        )
    finally:
        _disconnect()
        test_settings["NAME"] = kept_test_name
        connection.settings_dict["NAME"] = kept_name
        settings.DATABASES[connection.alias]["NAME"] = kept_name
    cursor.execute(f"ALTER DATABASE {quote(working)} RENAME TO {quote(template)}")


def _stale_drop(cursor: Any, template: str) -> None:
    """Templates of other migrations: dropped unless another run is copying one just now."""
    prefix = f"{template.rsplit('_tpl_', 1)[0]}_tpl_"
    cursor.execute("SELECT datname FROM pg_database")
    stale = [name for (name,) in cursor.fetchall() if name.startswith(prefix) and name != template]
    for name in stale:
        try:
            cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(name)}")
        except DatabaseError:
            pass  # in use by another run: a later run drops it


@contextmanager
def cloned_database(verbosity: int) -> Iterator[str]:
    """This process's test database, a copy of the template (made first if missing);
    dropped at the end."""
    quote = connection.ops.quote_name
    kept_name = connection.settings_dict["NAME"]
    target = connection.creation._get_test_db_name()  # type: ignore[attr-defined]
    template = template_name(target)
    with _server(connection) as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
        if cursor.fetchone() is None:
            _template_make(cursor, template, verbosity)
        _stale_drop(cursor, template)
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(target)} WITH (FORCE)")
        cursor.execute(f"CREATE DATABASE {quote(target)} TEMPLATE {quote(template)}")
    _disconnect()
    settings.DATABASES[connection.alias]["NAME"] = target
    connection.settings_dict["NAME"] = target
    try:
        yield target
    finally:
        _disconnect()
        settings.DATABASES[connection.alias]["NAME"] = kept_name
        connection.settings_dict["NAME"] = kept_name
        with connection.creation._nodb_cursor() as cursor:  # type: ignore[attr-defined]
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(target)} WITH (FORCE)")


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    django_test_environment: None,
    django_db_blocker: DjangoDbBlocker,
    django_db_use_migrations: bool,
    django_db_keepdb: bool,
    django_db_createdb: bool,
    django_db_modify_db_settings: None,
) -> Iterator[None]:
    """pytest-django's fixture of this name, but on PostgreSQL a copy of the template."""
    from django.test.utils import setup_databases, teardown_databases

    verbosity = request.config.option.verbose
    aliases, serialized_aliases = _get_databases_for_setup(request.session.items)
    if (
        connection.vendor == "postgresql"
        and django_db_use_migrations
        and not django_db_keepdb
        and aliases <= {connection.alias}
        and not serialized_aliases
    ):
        cloned = ExitStack()
        with django_db_blocker.unblock():
            cloned.enter_context(cloned_database(verbosity))
        yield
        with django_db_blocker.unblock():
            cloned.close()
        return
    # pytest-django's own (pytest_django/fixtures.py), for the other cases.
    keepdb = django_db_keepdb and not django_db_createdb
    if not django_db_use_migrations:
        from pytest_django.fixtures import _disable_migrations

        _disable_migrations()
    with django_db_blocker.unblock():
        db_cfg = setup_databases(
            verbosity=verbosity,
            interactive=False,
            aliases=aliases,
            serialized_aliases=serialized_aliases,
            keepdb=keepdb,
        )
    yield
    if not django_db_keepdb:
        with django_db_blocker.unblock():
            teardown_databases(db_cfg, verbosity=verbosity)
