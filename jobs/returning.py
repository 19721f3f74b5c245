"""One UPDATE ... RETURNING: change matching rows and read one back in a single round trip."""

from __future__ import annotations

from typing import Any, TypeVar, cast

from django.db import connections, transaction
from django.db.models import Model, QuerySet
from django.db.models.sql import UpdateQuery

M = TypeVar("M", bound=Model)


def update_returning(rows: QuerySet[M], **fields: Any) -> M | None:
    """`rows.update(**fields)` for a filter that matches at most one row, returning that
    row as updated (None when nothing matched). PostgreSQL and SQLite (3.35+) run it as one
    statement; an UPDATE then a SELECT in a transaction took four round trips (BEGIN,
    UPDATE, SELECT, COMMIT). Other backends get exactly that."""
    connection = connections[rows.db]
    if not connection.features.can_return_columns_from_insert:
        return _update_then_get(rows, **fields)
    query = cast(UpdateQuery, rows.query.chain(UpdateQuery))
    query.add_update_values(fields)
    sql, params = query.get_compiler(rows.db).as_sql()
    meta = rows.model._meta
    columns = ", ".join(
        connection.ops.quote_name(f.column) for f in meta.concrete_fields if f.column
    )
    found = list(rows.model._default_manager.raw(f"{sql} RETURNING {columns}", params))
    return found[0] if found else None


def _update_then_get(rows: QuerySet[M], **fields: Any) -> M | None:
    with transaction.atomic(using=rows.db):
        pks = list(rows.values_list("pk", flat=True)[:2])
        if not pks or not rows.filter(pk__in=pks).update(**fields):
            return None
        return rows.model._default_manager.using(rows.db).filter(pk=pks[0]).first()
