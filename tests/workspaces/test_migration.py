"""The data migration that brought workspaces, run on a database filled by the old models:
migrate back to before workspaces, write rows as the old code did, migrate forward."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [
    ("workspaces", None),
    ("accounts", "0006_apikey_admin_label"),
    ("reports", "0006_reporttemplate_renderers"),
    ("jobs", "0017_admin_labels"),
]
AFTER = [("workspaces", "0002_personal_workspace_per_user")]


def _migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    # The state at the targets ("app at zero" is no node: the others leave it out).
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


def _fill_with_old_models(apps: Any) -> dict[str, Any]:
    """What the old code wrote: rows owned by users, a built-in template, keys with secrets."""
    User = apps.get_model("auth", "User")
    Template = apps.get_model("reports", "ReportTemplate")
    Version = apps.get_model("reports", "ReportTemplateVersion")
    Job = apps.get_model("jobs", "PdfJob")
    ApiKey = apps.get_model("accounts", "ApiKey")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="Bob Smith")
    lonely = User.objects.create(username="lonely")  # owns nothing: still gets a workspace
    Template.objects.create(owner=None, name="Built-in", slug="invoice", html="<p>b</p>")
    ids: dict[str, Any] = {"users": [alice.pk, bob.pk, lonely.pk]}
    for user in (alice, bob):
        # The same slug for two owners was allowed (unique per owner) and must stay so.
        template = Template.objects.create(owner=user, name="Mine", slug="invoice", html="x")
        Version.objects.create(template=template, number=1, engine="handlebars", html="x")
        for n in range(3):
            Job.objects.create(
                owner=user, template=template, engine="handlebars", data={"n": n}, status="queued"
            )
        ApiKey.objects.create(
            user=user,
            name="ci",
            prefix=f"p{user.pk:06d}",
            digest="d" * 64,
            webhook_secret=f"whsec_{user.pk}",
            webhook_secret_previous=f"whsec_old_{user.pk}",
        )
    ids["templates"] = sorted(Template.objects.values_list("pk", "owner_id", "slug"))
    ids["jobs"] = sorted(Job.objects.values_list("pk", "owner_id", "data"))
    ids["keys"] = sorted(
        ApiKey.objects.values_list("pk", "user_id", "webhook_secret", "webhook_secret_previous")
    )
    return ids


@pytest.mark.heavy
@pytest.mark.django_db(transaction=True)
def test_migration_moves_every_row_into_its_owners_personal_workspace_and_back() -> None:
    old = _migrate(BEFORE)
    before = _fill_with_old_models(old)
    try:
        new = _migrate(AFTER)
        Workspace = new.get_model("workspaces", "Workspace")
        Membership = new.get_model("workspaces", "Membership")
        Template = new.get_model("reports", "ReportTemplate")
        Job = new.get_model("jobs", "PdfJob")
        ApiKey = new.get_model("accounts", "ApiKey")

        # One personal workspace per user, each user its only member and owner.
        assert Workspace.objects.filter(personal=True).count() == len(before["users"])
        personal = {
            m.user_id: m.workspace_id
            for m in Membership.objects.filter(role="owner", workspace__personal=True)
        }
        assert sorted(personal) == sorted(before["users"])
        assert Membership.objects.count() == len(before["users"])
        slugs = set(Workspace.objects.values_list("slug", flat=True))
        assert f"bob-smith-{before['users'][1]}" in slugs

        # Nothing lost, nothing changed, and every row owned by its owner's workspace.
        after_templates = sorted(Template.objects.values_list("pk", "owner_id", "slug"))
        assert after_templates == before["templates"]
        for template in Template.objects.all():
            expected = personal.get(template.owner_id)  # None for the built-in
            assert template.workspace_id == expected
        assert sorted(Job.objects.values_list("pk", "owner_id", "data")) == before["jobs"]
        assert not Job.objects.filter(workspace__isnull=True).exists()
        for job in Job.objects.all():
            assert job.workspace_id == personal[job.owner_id]
            assert job.template.workspace_id == job.workspace_id
        keys = ApiKey.objects.values_list(
            "pk", "user_id", "webhook_secret", "webhook_secret_previous"
        )
        assert sorted(keys) == before["keys"]
        for key in ApiKey.objects.all():
            assert (key.workspace_id, key.role) == (personal[key.user_id], "owner")

        # And back again: the reverse unlinks the rows, it must not cascade-delete them.
        old = _migrate(BEFORE)
        Job = old.get_model("jobs", "PdfJob")
        assert sorted(Job.objects.values_list("pk", "owner_id", "data")) == before["jobs"]
        assert old.get_model("accounts", "ApiKey").objects.count() == len(before["keys"])
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
