"""jobs.inserts: a new job's INSERT compiled once writes what PdfJob.objects.create writes."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import connection
from django.db.models.signals import post_save, pre_save
from django.db.models.sql import InsertQuery
from django.test.utils import CaptureQueriesContext

from accounts.services import api_key_create
from jobs import inserts
from jobs.inserts import _insert_statement, job_insert
from jobs.models import PdfJob
from tests.factories import ReportTemplateFactory
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db

# Columns that differ between any two new rows whatever their fields.
_OWN = {"id", "job_id", "created_at", "updated_at"}


def _fields(user: Any) -> dict[str, Any]:
    """Every kind of column a submit fills: foreign keys, JSON, text, UUID, a timestamp."""
    template = ReportTemplateFactory(owner=user)
    key = api_key_create(user=user, name="insert")[0]
    return {
        "owner": user,
        "workspace": workspace_personal(user=user),
        "template": template,
        "template_version": template.versions.first(),
        "html_template": "<p>{{x}} \u00e9 ' \" \\</p>",
        "partial_versions": {"header": 3},
        "engine": "handlebars",
        "renderer": "weasyprint",
        "helpers": "",
        "data": {"x": [1, 2.5, None, True, "y\u2603"], "nested": {"a": {}}},
        "options": {"filename": "a.pdf", "pdf": {"title": "t"}},
        "steps": [{"type": "watermark", "text": "x"}],
        "callback_url": "https://example.com/hook",
        "idempotency_key": "key-1",
        "request_digest": "d" * 64,
        "api_key": key,
        "batch_id": uuid.uuid4(),
        "cache_key": "c" * 64,
        "enqueued_at": PdfJob._meta.get_field("created_at").pre_save(PdfJob(), True),
        "warnings": ["one"],
    }


def _row(job: PdfJob) -> dict[str, Any]:
    row = PdfJob.objects.filter(pk=job.pk).values().get()
    return {column: value for column, value in row.items() if column not in _OWN}


def test_the_built_insert_writes_the_row_the_orm_writes(user):
    fields = _fields(user)
    by_orm = PdfJob.objects.create(**fields)
    expected = _row(by_orm)
    by_orm.delete()  # its idempotency key is the workspace's unique one
    built = PdfJob(**fields)
    job_insert(built)
    assert _row(built) == expected
    assert built.pk is not None
    assert built._state.adding is False
    assert built._state.db == "default"
    # Stamped by the fields' own pre_save (auto_now_add, auto_now), as save() stamps them.
    stored = PdfJob.objects.get(pk=built.pk)
    assert (stored.job_id, stored.created_at, stored.updated_at) == (
        built.job_id,
        built.created_at,
        built.updated_at,
    )


def test_a_job_with_defaults_only_is_the_same_row_too(user):
    by_orm = PdfJob.objects.create(owner=user, engine="handlebars")
    built = PdfJob(owner=user, engine="handlebars")
    job_insert(built)
    assert _row(built) == _row(by_orm)


def test_the_statement_is_the_one_django_compiles_for_a_real_job(user):
    job = PdfJob(**_fields(user))
    sql, fields, returning, _ = _insert_statement("default")
    query = InsertQuery(PdfJob)
    query.insert_values(fields, [job], raw=False)
    compiler = query.get_compiler(using="default")
    compiler.returning_fields = returning
    ((expected, params),) = compiler.as_sql()
    assert sql == expected
    assert len(params) == len(fields) == sql.count("%s")
    with CaptureQueriesContext(connection) as queries:
        job_insert(job)
    assert len(queries) == 1
    assert queries[0]["sql"].startswith("INSERT INTO")


def _comparable(value: Any) -> Any:
    """A prepared parameter, psycopg's JSON and integer wrappers as what they wrap."""
    return (type(value).__name__, getattr(value, "obj", value))


def test_the_parameters_are_the_ones_django_prepares(user):
    """Columns left None (about a fifth of a new job's) are passed as None without their
    field's preparation; every parameter is still what Django's compiler prepares."""
    job = PdfJob(**_fields(user))
    _, fields, returning, none_kept = _insert_statement("default")
    assert sum(none_kept) > 30  # nearly every field prepares None as None
    executed: list[Any] = []

    def capture(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append(list(params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        job_insert(job)
    job.pk = None  # compile the same row again, as the ORM would
    job._state.adding = True
    query = InsertQuery(PdfJob)
    query.insert_values(fields, [job], raw=False)
    compiler = query.get_compiler(using="default")
    compiler.returning_fields = returning
    ((_, params),) = compiler.as_sql()
    assert None in executed[0]
    # created_at and updated_at: stamped again by the second compile's pre_save.
    stamped_again = [i for i, f in enumerate(fields) if f.name in ("created_at", "updated_at")]
    ours = [_comparable(p) for i, p in enumerate(executed[0]) if i not in stamped_again]
    assert ours == [_comparable(p) for i, p in enumerate(params) if i not in stamped_again]


def test_a_field_that_prepares_none_as_something_else_is_still_prepared(user, monkeypatch):
    field = PdfJob._meta.get_field("completed_at")
    prepare = field.get_db_prep_save
    monkeypatch.setattr(
        field,
        "get_db_prep_save",
        lambda value, connection: "not a time" if value is None else prepare(value, connection),
    )
    monkeypatch.setattr(inserts, "_INSERT_SQL", {})
    executed: list[Any] = []

    class Sent(Exception):
        """The INSERT was about to be sent: what it carries is all this test needs (SQLite
        would store the text where PostgreSQL refuses it)."""

    def capture(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append(list(params))
        raise Sent

    _, fields, _, none_kept = inserts._insert_statement("default")
    assert not none_kept[fields.index(field)]
    with connection.execute_wrapper(capture), pytest.raises(Sent):
        job_insert(PdfJob(owner=user, engine="handlebars"))
    assert executed[0][fields.index(field)] == "not a time"


def test_it_sends_the_save_signals_as_save_does(user):
    seen: list[tuple[str, Any]] = []

    def before(sender: Any, instance: PdfJob, **kwargs: Any) -> None:
        seen.append(("pre", instance._state.adding, kwargs["raw"], kwargs["update_fields"]))

    def after(sender: Any, instance: PdfJob, **kwargs: Any) -> None:
        seen.append(("post", instance.pk is not None, kwargs["created"], kwargs["using"]))

    pre_save.connect(before, sender=PdfJob)
    post_save.connect(after, sender=PdfJob)
    try:
        job_insert(PdfJob(owner=user, engine="handlebars"))
    finally:
        pre_save.disconnect(before, sender=PdfJob)
        post_save.disconnect(after, sender=PdfJob)
    assert seen == [("pre", True, False, None), ("post", True, True, "default")]


def test_an_unsaved_related_object_is_refused_as_save_refuses_it(user):
    from django.contrib.auth import get_user_model

    with pytest.raises(ValueError, match="unsaved related object"):
        job_insert(PdfJob(owner=get_user_model()(username="unsaved"), engine="handlebars"))
