"""A new job's INSERT as SQL Django compiled once per process (the submit's hot path).

`PdfJob.objects.create(...)` compiles the same INSERT of 44 columns on every submit; that
compile was about half of the insert's cost. `job_insert` does what `Model.save()` does
for a new row of a model without parents (the same signals, field preparation, statement,
returned primary key and instance state), with the statement's text taken from Django's
own compiler the first time and kept."""

from __future__ import annotations

from typing import Any

from django.db import connections, router, transaction
from django.db.models import Field
from django.db.models.signals import post_save, pre_save
from django.db.models.sql import InsertQuery

from jobs.models import PdfJob

_Statement = tuple[str, list[Field[Any, Any]], list[Field[Any, Any]], list[bool]]
# database alias -> (the INSERT with one placeholder a column, its columns, the returned
# columns, and for each column whether its field prepares None as None)
_INSERT_SQL: dict[str, _Statement] = {}


def _insert_statement(using: str) -> _Statement:
    """Django's INSERT of one PdfJob on `using`, compiled from a blank instance: with no
    expression among the values every column's placeholder is the field's own, whatever
    the value, so the text serves every row (job_insert checks there is none). A field's
    preparation of None is a pure function of the field and the connection; a new job
    leaves about a fifth of its columns None (the times and sizes a render fills in)."""
    statement = _INSERT_SQL.get(using)
    if statement is None:
        meta = PdfJob._meta
        # Model._save_table's columns for an instance without a primary key yet.
        fields = [
            f for f in meta.local_concrete_fields if not f.generated and f is not meta.auto_field
        ]
        returning = list(meta.db_returning_fields)
        query = InsertQuery(PdfJob)
        query.insert_values(fields, [PdfJob()], raw=False)
        compiler = query.get_compiler(using=using)
        compiler.returning_fields = returning
        ((sql, _),) = compiler.as_sql()
        connection = connections[using]
        none_kept = [f.get_db_prep_save(None, connection) is None for f in fields]
        statement = _INSERT_SQL[using] = (sql, fields, returning, none_kept)
    return statement


def job_insert(job: PdfJob) -> None:
    """Insert `job` (new, built with its field values) as `job.save(force_insert=True)`
    would: pre_save, each field's pre_save (auto_now stamps) and database preparation, the
    INSERT returning the primary key, the instance marked saved, post_save. A value that is
    an expression (the ORM compiles those into the statement) is refused: use save()."""
    using = router.db_for_write(PdfJob, instance=job)
    connection = connections[using]
    if not connection.features.can_return_columns_from_insert:
        # No RETURNING (MySQL): the ORM reads the new id back its own way.
        job.save(force_insert=True, using=using)
        return
    # save()'s own check: a related object without a primary key is a ValueError.
    job._prepare_related_fields_for_save(operation_name="save")  # type: ignore[attr-defined]
    sql, fields, returning, none_kept = _insert_statement(using)
    pre_save.send(sender=PdfJob, instance=job, raw=False, using=using, update_fields=None)
    values = [field.pre_save(job, True) for field in fields]
    if any(hasattr(value, "resolve_expression") for value in values):
        # The statement has a placeholder where the ORM would compile an expression.
        raise ValueError("job_insert takes plain values, not expressions")
    params = [
        None if value is None and kept else field.get_db_prep_save(value, connection)
        for field, value, kept in zip(fields, values, none_kept, strict=True)
    ]
    with transaction.mark_for_rollback_on_error(using=using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()  # the RETURNING columns, as the backends' operations read them
    for field, value in zip(returning, row, strict=True):
        setattr(job, field.attname, value)
    job._state.db = using
    job._state.adding = False
    post_save.send(
        sender=PdfJob, instance=job, created=True, update_fields=None, raw=False, using=using
    )
