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
    set and the caller reads them itself. `query()` gives the same SQL and parameters at
    every call: they are compiled once a process (_joined_text)."""

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
    columns = _returning_columns(rows.model, connection)
    if connection.vendor != "postgresql" or not (related or joined):
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} RETURNING {columns}", params)
            row = cursor.fetchone()
        return None if row is None else _loaded(rows.model, rows.db, row)
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
    selects, joins, extra_params = ["u.*"], [], list[Any]()
    own_width = len(_loading(rows.model, connection)[0])
    related_fields: list[tuple[ForeignKey[Any, Any], type[Model], list[Field[Any, Any]]]] = []
    for i, name in enumerate(related):
        fk, select, join_text = _related_text(rows.model, name, i, connection)
        target_model = fk.related_model
        related_fields.append((fk, target_model, _loading(target_model, connection)[0]))
        selects.append(select)
        joins.append(join_text)
    widths = []
    for i, join in enumerate(joined):
        width, select, join_text, inner_params = _joined_text(rows.model, join, i, connection)
        widths.append(width)
        selects.append(select)
        joins.append(join_text)
        extra_params += inner_params
    # Table and column names from the models' meta, every value a parameter.
    statement = f"WITH u AS ({sql} RETURNING {columns}) SELECT {', '.join(selects)} FROM u "  # noqa: S608
    statement += " ".join(joins)
    with connection.cursor() as cursor:
        cursor.execute(statement, (*params, *extra_params))
        row = cursor.fetchone()
    if row is None:
        return None
    instance = _loaded(rows.model, rows.db, row[:own_width])
    at = own_width
    for fk, target_model, target_fields in related_fields:
        values = row[at : at + len(target_fields)]
        at += len(target_fields)
        pk = values[target_fields.index(target_model._meta.pk)]
        fk.set_cached_value(
            instance, None if pk is None else _loaded(target_model, rows.db, values)
        )
    for i, join in enumerate(joined):
        values = row[at : at + widths[i]]
        at += widths[i]
        setattr(instance, join.name, None if values[0] is None else tuple(values[1:]))
    return instance


def _column(field: Any) -> str:
    return str(field.column)


# The text of a statement's parts that depend only on the models and the database (the
# RETURNING list, a related row's columns and join, a joined query's SQL and parameters),
# built once a process: quoting some 80 names and compiling the owner's mail choices for
# every transition took ~0.7 ms of a worker's CPU a one-page job (tests/bench/job_overhead).
_texts: dict[tuple[Any, ...], Any] = {}


def _returning_columns(model: type[Model], connection: Any) -> str:
    key = ("returning", model, connection.alias, connection.vendor)
    found = _texts.get(key)
    if found is None:
        quote = connection.ops.quote_name
        found = _texts[key] = ", ".join(quote(_column(f)) for f in _loading(model, connection)[0])
    return str(found)


def _related_text(
    model: type[Model], name: str, i: int, connection: Any
) -> tuple[ForeignKey[Any, Any], str, str]:
    """The foreign key `name`, and the select list and LEFT JOIN of its row (alias r<i>)."""
    key = ("related", model, name, i, connection.alias, connection.vendor)
    found = _texts.get(key)
    if found is None:
        quote = connection.ops.quote_name
        fk = cast("ForeignKey[Any, Any]", model._meta.get_field(name))
        target = fk.related_model._meta
        target_fields = _loading(fk.related_model, connection)[0]
        alias = f"r{i}"
        select = ", ".join(
            f"{alias}.{quote(_column(f))} AS _r{i}_{j}" for j, f in enumerate(target_fields)
        )
        join = (
            f"LEFT JOIN {quote(target.db_table)} {alias} "
            f"ON {alias}.{quote(_column(target.pk))} = u.{quote(_column(fk))}"
        )
        found = _texts[key] = (fk, select, join)
    return cast("tuple[ForeignKey[Any, Any], str, str]", found)


def _joined_text(
    model: type[Model], join: Joined, i: int, connection: Any
) -> tuple[int, str, str, list[Any]]:
    """A joined query's width, its select list and LEFT JOIN (alias j<i>), and its
    parameters."""
    key = ("joined", model, join, i, connection.alias, connection.vendor)
    found = _texts.get(key)
    if found is None:
        values_query = join.query().query
        inner, inner_params = values_query.sql_with_params()
        width = len(values_query.values_select) or 1
        names = [f"_j{i}_{j}" for j in range(width)]
        on = cast("Field[Any, Any]", model._meta.get_field(join.on))
        text = (
            f"LEFT JOIN ({inner}) j{i} ({', '.join(names)}) "
            f"ON j{i}._j{i}_0 = u.{connection.ops.quote_name(_column(on))}"
        )
        select = ", ".join(f"j{i}.{name}" for name in names)
        found = _texts[key] = (width, select, text, list(inner_params))
    width, select, text, params = found
    return width, select, text, list(params)


# Per model and database: the concrete fields in the order RETURNING and the joins list
# them, and each one's converters (as the ORM's compiler finds them). Loading a row through
# Model.raw() looked these up again for every statement (~0.5 ms of a worker's CPU each).
_Loading = tuple[list[Field[Any, Any]], list[str], list[tuple[int, list[Any], Any]]]
_loadings: dict[tuple[type[Model], str, str], _Loading] = {}


def _loading(model: type[Model], connection: Any) -> _Loading:
    key = (model, connection.alias, connection.vendor)
    found = _loadings.get(key)
    if found is None:
        fields = [f for f in model._meta.concrete_fields if f.column]
        converting = []
        for index, field in enumerate(fields):
            column = field.get_col(model._meta.db_table)
            converters = [
                *connection.ops.get_db_converters(column),
                *column.get_db_converters(connection),
            ]
            if converters:
                converting.append((index, converters, column))
        found = _loadings[key] = (fields, [f.attname for f in fields], converting)
    return found


def _loaded(model: type[M], db: str, values: Sequence[Any]) -> M:
    """The model instance of a row of its concrete fields' columns, as the ORM loads it
    (JSON decoded, and so on)."""
    connection = connections[db]
    _, attnames, converting = _loading(model, connection)
    row = list(values)
    for index, converters, column in converting:
        value = row[index]
        for convert in converters:
            value = convert(value, column, connection)
        row[index] = value
    return model.from_db(db, attnames, row)


def _update_then_get(rows: QuerySet[M], **fields: Any) -> M | None:
    with transaction.atomic(using=rows.db):
        pks = list(rows.values_list("pk", flat=True)[:2])
        if not pks or not rows.filter(pk__in=pks).update(**fields):
            return None
        return rows.model._default_manager.using(rows.db).filter(pk=pks[0]).first()
