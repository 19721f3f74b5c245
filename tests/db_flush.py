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
A flush that asks to reset sequences or to cascade keeps Django's TRUNCATE."""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql.operations import DatabaseOperations

_truncate = DatabaseOperations.sql_flush


def _sql_flush(
    self: DatabaseOperations,
    style: Any,
    tables: list[str],
    *,
    reset_sequences: bool = False,
    allow_cascade: bool = False,
) -> list[str]:
    if reset_sequences or allow_cascade or not tables:
        return _truncate(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    return [
        "SET CONSTRAINTS ALL DEFERRED;",
        # Table names from Django's own introspection, quoted: no input reaches this SQL.
        *(f"DELETE FROM {self.quote_name(table)};" for table in tables),  # noqa: S608
    ]


def pytest_configure(config: Any) -> None:
    DatabaseOperations.sql_flush = _sql_flush  # type: ignore[method-assign]
