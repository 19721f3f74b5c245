"""Migration 0010 on rows the old code wrote: every template's latest version becomes its
published one (before drafts, every save was live), so jobs render what they rendered."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("reports", "0009_engine_choices_from_the_registry")]
AFTER = [("reports", "0010_template_published_version")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.heavy  # every migration backwards and forwards: seconds of CPU
@pytest.mark.django_db(transaction=True)
def test_each_templates_latest_version_is_published():
    old = _migrate(BEFORE)
    try:
        Template = old.get_model("reports", "ReportTemplate")
        Version = old.get_model("reports", "ReportTemplateVersion")
        versioned = Template.objects.create(name="V", slug="v", html="<p>2</p>")
        for number in (1, 2):
            Version.objects.create(
                template=versioned, number=number, engine="handlebars", html=f"<p>{number}</p>"
            )
        bare = Template.objects.create(name="Bare", slug="bare", html="<p>x</p>")
        new = _migrate(AFTER)
        Template = new.get_model("reports", "ReportTemplate")
        migrated = Template.objects.select_related("published_version").get(pk=versioned.pk)
        assert migrated.published_version.number == 2
        assert migrated.published_at == migrated.published_version.created_at
        assert migrated.draft_version_id is None
        assert Template.objects.get(pk=bare.pk).published_version_id is None
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
