"""The flush after each transactional test (tests/db_flush.py): every table emptied by
DELETEs but the content types and permissions the migrations made, which are kept, so
Django's post-migrate handlers need not make them again."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection

from tests import db_flush
from tests.factories import UserFactory
from tests.processes import service_missing

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_flush_empties_the_tables_and_keeps_content_types_and_permissions(monkeypatch):
    if connection.vendor != "postgresql":
        service_missing(
            "the DELETE flush is PostgreSQL's (SQLite keeps Django's own): set "
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/pdfreports (.ci/run starts it)"
        )
    UserFactory()
    types, permissions = ContentType.objects.count(), Permission.objects.count()
    assert types > 0
    assert permissions > 0
    rebuilds: list[object] = []

    real = db_flush._rebuild

    def rebuild(*args, **kwargs):
        rebuilds.append(args)
        real(*args, **kwargs)

    monkeypatch.setattr(db_flush, "_rebuild", rebuild)
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False)
    assert not User.objects.exists()
    assert ContentType.objects.count() == types
    assert Permission.objects.count() == permissions
    assert rebuilds == []  # nothing to make again
    # A flush that resets sequences truncates every table: then the handlers make them again.
    call_command("flush", verbosity=0, interactive=False, reset_sequences=True)
    assert len(rebuilds) == 1
    assert ContentType.objects.count() == types
    assert Permission.objects.count() == permissions
