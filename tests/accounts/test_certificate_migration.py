"""accounts 0009: signing certificates uploaded before workspaces move into their
uploader's personal workspace (made if the uploader has none yet), and back."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("accounts", "0008_signing_certificate_workspace")]
AFTER = [("accounts", "0009_signing_certificate_workspace_from_owner")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.heavy  # every migration backwards and forwards: seconds of CPU
@pytest.mark.django_db(transaction=True)
def test_certificates_move_into_the_uploaders_personal_workspace() -> None:
    old = _migrate(BEFORE)
    User = old.get_model("auth", "User")
    Workspace = old.get_model("workspaces", "Workspace")
    Membership = old.get_model("workspaces", "Membership")
    Certificate = old.get_model("accounts", "SigningCertificate")
    alice, bob = User.objects.create(username="alice"), User.objects.create(username="bob")
    mine = Workspace.objects.create(name="alice", slug="alice-1", personal=True)
    Membership.objects.create(user=alice, workspace=mine, role="owner")
    team = Workspace.objects.create(name="Team", slug="team")  # not personal: not chosen
    Membership.objects.create(user=alice, workspace=team, role="owner")
    for user in (alice, bob):
        Certificate.objects.create(
            user=user, name="c", subject="CN=c", not_after="2030-01-01T00:00:00Z",
            sealed_pkcs12=b"x", sealed_password=b"y",
        )  # fmt: skip
    try:
        new = _migrate(AFTER)
        Certificate = new.get_model("accounts", "SigningCertificate")
        Membership = new.get_model("workspaces", "Membership")
        assert Certificate.objects.get(user_id=alice.pk).workspace_id == mine.pk
        made = Membership.objects.get(user_id=bob.pk, role="owner", workspace__personal=True)
        assert Certificate.objects.get(user_id=bob.pk).workspace_id == made.workspace_id
        back = _migrate(BEFORE)
        assert (
            not back.get_model("accounts", "SigningCertificate")
            .objects.exclude(workspace=None)
            .exists()
        )
        assert back.get_model("accounts", "SigningCertificate").objects.count() == 2
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
