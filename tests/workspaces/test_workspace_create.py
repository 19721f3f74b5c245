"""POST /api/v1/workspaces: an owner (of the current workspace) makes a team workspace,
becomes its owner, and its audit log starts with workspace.created."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import api_key_create
from workspaces.models import AuditEntry, Membership, Workspace

pytestmark = pytest.mark.django_db
CREATE = "/api/v1/workspaces"


def _client(user, role: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=user, name=role, role=role)[1])
    return client


def test_an_owner_key_makes_a_team_workspace_its_creator_owns(user):
    answer = _client(user, "owner").post(CREATE, {"name": "  Finance  Team "}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json() == {"name": "Finance Team", "slug": "finance-team", "role": "owner"}
    made = Workspace.objects.get(slug="finance-team")
    assert not made.personal
    assert Membership.objects.get(workspace=made, user=user).role == "owner"
    entry = AuditEntry.objects.get(workspace=made)
    assert entry.action == "workspace.created"
    assert entry.actor.startswith("key ")
    assert entry.actor.endswith(f"({user.username})")
    assert entry.changes == {"owner": user.username, "slug": "finance-team"}


def test_a_session_user_makes_one_from_their_own_workspace(user):
    client = APIClient()
    client.force_authenticate(user)
    assert client.post(CREATE, {"name": "Ops"}, format="json").status_code == 201


def test_an_editor_key_is_403_naming_the_owner_role(user):
    answer = _client(user, "editor").post(CREATE, {"name": "Finance"}, format="json")
    assert answer.status_code == 403
    assert answer.json()["action"] == "workspace.create"
    assert answer.json()["roles_allowed"] == ["owner"]
    assert not Workspace.objects.filter(slug="finance").exists()


@pytest.mark.parametrize(
    ("body", "status", "fragment"),
    [
        ({}, 400, "name: This field is required."),
        ({"name": "!!!"}, 400, "needs a letter or digit"),
        ({"name": "Finance", "nmae": "x"}, 400, 'nmae: Unknown field. Did you mean "name"?'),
    ],
)
def test_a_bad_body_is_refused_saying_why(user, body, status, fragment):
    answer = _client(user, "owner").post(CREATE, body, format="json")
    assert answer.status_code == status
    assert fragment in answer.json()["error"]


def test_a_taken_name_is_a_409(user):
    client = _client(user, "owner")
    assert client.post(CREATE, {"name": "Finance"}, format="json").status_code == 201
    answer = client.post(CREATE, {"name": "finance"}, format="json")
    assert answer.status_code == 409
    assert answer.json()["code"] == "workspace_exists"
