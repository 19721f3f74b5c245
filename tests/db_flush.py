"""The test database's flush after each transactional test, as DELETEs instead of one
TRUNCATE (a pytest plugin: tests/conftest.py lists it in `pytest_plugins`).

Django empties every table after a test that committed (pytest-django's
`transactional_db`, the live stack's tests) with one `TRUNCATE` of all of them. On
PostgreSQL a TRUNCATE gives each table and index a new file and syncs them: 0.2 s on an
idle machine for this project's tables, over a second when the two test processes, their
stacks and PostgreSQL share two busy cores, and several hundred tests pay it. After a test
nearly every table is empty or holds a few rows, which a DELETE removes in milliseconds.
Django's foreign keys are `DEFERRABLE INITIALLY DEFERRED`, and the flush runs in one
transaction, so the order of the DELETEs does not matter: at commit every table is empty.
A flush that asks to reset sequences or to cascade keeps Django's TRUNCATE.

The content types and permissions are kept: the migrations made them, no test changes them
for good (the migration tests move them and move them back), and after emptying them Django's
post-migrate handlers made them again, ~40 ms of CPU and 60 ms of a 70 ms flush on each of
the ~300 transactional tests. After a DELETE flush that kept them, that rebuild is skipped."""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db.backends.postgresql.operations import DatabaseOperations

_truncate = DatabaseOperations.sql_flush
_rebuild = flush.emit_post_migrate_signal
# What the migrations' post-migrate handlers fill, the same before and after every test.
KEPT_TABLES = frozenset({"django_content_type", "auth_permission"})
# Whether the last flush kept KEPT_TABLES (test processes flush one at a time).
_kept = False


def _sql_flush(
    self: DatabaseOperations,
    style: Any,
    tables: list[str],
    *,
    reset_sequences: bool = False,
    allow_cascade: bool = False,
) -> list[str]:
    global _kept
    _kept = not (reset_sequences or allow_cascade or not tables)
    if not _kept:
        return _truncate(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    return [
        "SET CONSTRAINTS ALL DEFERRED;",
        # Table names from Django's own introspection, quoted: no input reaches this SQL.
        *(
            f"DELETE FROM {self.quote_name(table)};"  # noqa: S608
            for table in tables
            if table not in KEPT_TABLES
        ),
    ]


def _post_flush(*args: Any, **kwargs: Any) -> None:
    """The post-migrate handlers after a flush, unless it kept what they would make."""
    if not _kept:
        _rebuild(*args, **kwargs)


def pytest_configure(config: Any) -> None:
    DatabaseOperations.sql_flush = _sql_flush  # type: ignore[method-assign]
    flush.emit_post_migrate_signal = _post_flush
