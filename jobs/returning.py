"""One UPDATE ... RETURNING: change matching rows and read one back in a single round trip,
on PostgreSQL with the rows the caller needs next read in the same statement."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from django.db import connections, transaction
from django.db.models import Field, ForeignKey, Model, QuerySet
from django.db.models.sql import UpdateQuery

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Joined:
    """Values read with the updated row in the same statement: `query()` is a values_list
    query whose first column is matched to the updated row's `on` column (a LEFT JOIN);
    the returned instance gets the other columns as a tuple in `name`, or None when no row
    matched. Only where the statement can carry it (PostgreSQL): elsewhere `name` is not
    set and the caller reads them itself."""

    name: str
    on: str
    query: Callable[[], QuerySet[Any, Any]]


def update_returning(
    rows: QuerySet[M],
    *,
    related: Sequence[str] = (),
    joined: Sequence[Joined] = (),
    **fields: Any,
) -> M | None:
    """`rows.update(**fields)` for a filter that matches at most one row, returning that
    row as updated (None when nothing matched). PostgreSQL and SQLite (3.35+) run it as one
    statement; an UPDATE then a SELECT in a transaction took four round trips (BEGIN,
    UPDATE, SELECT, COMMIT). Other backends get exactly that.

    On PostgreSQL the same statement also reads the `related` foreign keys' rows (as
    select_related would: cached on the instance, no query when used) and the `joined`
    values, the UPDATE in a CTE; elsewhere they are read when used, as before."""
    connection = connections[rows.db]
    if not connection.features.can_return_columns_from_insert:
        return _update_then_get(rows, **fields)
    query = cast(UpdateQuery, rows.query.chain(UpdateQuery))
    query.add_update_values(fields)
    sql, params = query.get_compiler(rows.db).as_sql()
    meta = rows.model._meta
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in meta.concrete_fields if f.column)
    manager = rows.model._default_manager.db_manager(rows.db)
    if connection.vendor != "postgresql" or not (related or joined):
        found = list(manager.raw(f"{sql} RETURNING {columns}", params))
        return found[0] if found else None
    return _update_returning_joined(rows, sql, tuple(params), columns, related, joined)


def _update_returning_joined(
    rows: QuerySet[M],
    sql: str,
    params: tuple[Any, ...],
    columns: str,
    related: Sequence[str],
    joined: Sequence[Joined],
) -> M | None:
    """The UPDATE ... RETURNING in a CTE, its row LEFT JOINed to the related rows and the
    joined queries: one statement, one round trip. Extra columns are named `_r<i>_<j>`
    (related) and `_j<i>_<j>` (joined) and taken off the instance again."""
    connection = connections[rows.db]
    meta = rows.model._meta
    quote = connection.ops.quote_name
    selects, joins, extra_params = ["u.*"], [], list[Any]()
    related_fields: list[tuple[ForeignKey[Any, Any], type[Model], list[Field[Any, Any]]]] = []
    for i, name in enumerate(related):
        fk = cast("ForeignKey[Any, Any]", meta.get_field(name))
        target_model = fk.related_model
        target = target_model._meta
        target_fields = [f for f in target.concrete_fields if f.column]
        related_fields.append((fk, target_model, target_fields))
        alias = f"r{i}"
        selects += [
            f"{alias}.{quote(_column(f))} AS _r{i}_{j}" for j, f in enumerate(target_fields)
        ]
        joins.append(
            f"LEFT JOIN {quote(target.db_table)} {alias} "
            f"ON {alias}.{quote(_column(target.pk))} = u.{quote(_column(fk))}"
        )
    widths = []
    for i, join in enumerate(joined):
        values_query = join.query().query
        inner, inner_params = values_query.sql_with_params()
        width = len(values_query.values_select) or 1
        widths.append(width)
        names = [f"_j{i}_{j}" for j in range(width)]
        selects += [f"j{i}.{name}" for name in names]
        on = cast("Field[Any, Any]", meta.get_field(join.on))
        joins.append(
            f"LEFT JOIN ({inner}) j{i} ({', '.join(names)}) "
            f"ON j{i}._j{i}_0 = u.{quote(_column(on))}"
        )
        extra_params += list(inner_params)
    # Table and column names from the models' meta, every value a parameter.
    statement = f"WITH u AS ({sql} RETURNING {columns}) SELECT {', '.join(selects)} FROM u "  # noqa: S608
    statement += " ".join(joins)
    manager = rows.model._default_manager.db_manager(rows.db)
    found = list(manager.raw(statement, (*params, *extra_params)))
    if not found:
        return None
    instance = found[0]
    for i, (fk, target_model, target_fields) in enumerate(related_fields):
        values = [instance.__dict__.pop(f"_r{i}_{j}") for j in range(len(target_fields))]
        pk_index = target_fields.index(target_model._meta.pk)
        if values[pk_index] is None:
            value = None
        else:
            pairs = zip(target_fields, values, strict=True)
            converted = [_converted(field, value, connection) for field, value in pairs]
            value = target_model.from_db(rows.db, [f.attname for f in target_fields], converted)
        fk.set_cached_value(instance, value)
    for i, join in enumerate(joined):
        values = [instance.__dict__.pop(f"_j{i}_{j}") for j in range(widths[i])]
        setattr(instance, join.name, None if values[0] is None else tuple(values[1:]))
    return instance


def _column(field: Any) -> str:
    return str(field.column)


def _converted(field: Field[Any, Any], value: Any, connection: Any) -> Any:
    """The value as the ORM would have given it (JSON decoded, and so on)."""
    column = field.get_col(field.model._meta.db_table)
    for convert in [
        *connection.ops.get_db_converters(column),
        *column.get_db_converters(connection),
    ]:
        value = convert(value, column, connection)
    return value


def _update_then_get(rows: QuerySet[M], **fields: Any) -> M | None:
    with transaction.atomic(using=rows.db):
        pks = list(rows.values_list("pk", flat=True)[:2])
        if not pks or not rows.filter(pk__in=pks).update(**fields):
            return None
        return rows.model._default_manager.using(rows.db).filter(pk=pks[0]).first()
