"""Joining a workspace by email domain: the owner's settings (service, API, page) and the
join itself (once, never over an existing membership). The sign-in that calls it runs
against a real OpenID provider in tests/sso."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import api_key_create
from rendering.errors import ApplicationError
from tests.factories import UserFactory
from workspaces.current import SESSION_KEY
from workspaces.models import DomainJoin, Membership, Role, SsoDomain
from workspaces.selectors import workspace_sso
from workspaces.services import (
    membership_set,
    workspace_create,
    workspace_join_by_email_domain,
    workspace_sso_set,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def acme() -> Any:
    owner = UserFactory(username="acme-owner", email="boss@Example.com")
    return workspace_create(name="Acme", owner=owner), owner


def _api(workspace: Any, owner: Any) -> APIClient:
    _, raw = api_key_create(user=owner, workspace=workspace, role="owner")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    return client


def test_domains_are_stored_bare_and_lower_cased_with_the_role(acme):
    workspace, owner = acme
    workspace_sso_set(
        workspace=workspace, domains=[" Example.COM ", "@example.com"], role="viewer", by=owner
    )
    assert workspace_sso(workspace=workspace) == {
        "workspace": "acme",
        "domains": ["example.com"],
        "role": "viewer",
    }
    workspace_sso_set(workspace=workspace, domains=[], role="requester", by=owner)
    assert not SsoDomain.objects.exists()


@pytest.mark.parametrize(
    ("domains", "role", "words"),
    [
        (["not a domain"], "viewer", "is not a domain name"),
        (["other.org"], "viewer", "only your own email address's domain (example.com)"),
        (["example.com"], "owner", "requesters or viewers"),
    ],
)
def test_bad_settings_are_refused_with_a_message(acme, domains, role, words):
    workspace, owner = acme
    with pytest.raises(ApplicationError) as refused:
        workspace_sso_set(workspace=workspace, domains=domains, role=role, by=owner)
    assert refused.value.http_status == 400
    assert refused.value.code == "invalid_sso_domain"
    assert words in refused.value.message


def test_the_api_sets_and_reads_them_and_a_domain_joins_one_workspace(acme):
    workspace, owner = acme
    client = _api(workspace, owner)
    answer = client.put(
        "/api/v1/workspace/sso", {"domains": ["example.com"], "role": "viewer"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"workspace": "acme", "domains": ["example.com"], "role": "viewer"}
    assert client.get("/api/v1/workspace/sso").json()["domains"] == ["example.com"]

    rival_owner = UserFactory(username="rival", email="rival@example.com")
    rival = workspace_create(name="Rival", owner=rival_owner)
    taken = _api(rival, rival_owner).put(
        "/api/v1/workspace/sso", {"domains": ["example.com"], "role": "requester"}, format="json"
    )
    assert taken.status_code == 409
    assert taken.json()["code"] == "sso_domain_taken"
    bad = client.put("/api/v1/workspace/sso", {"domains": ["x y"], "role": "viewer"}, format="json")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_sso_domain"


def test_the_page_saves_them_and_shows_a_refusal(acme):
    workspace, owner = acme
    client = Client()
    client.force_login(owner)
    session = client.session
    session[SESSION_KEY] = workspace.pk
    session.save()
    saved = client.post("/workspace/sso/", {"domains": "example.com", "role": "requester"})
    assert saved.status_code == 302
    assert workspace_sso(workspace=workspace)["domains"] == ["example.com"]
    assert "example.com" in client.get("/workspace/sso/").content.decode()
    refused = client.post("/workspace/sso/", {"domains": "other.org", "role": "viewer"})
    assert refused.status_code == 400
    assert "only your own email address" in refused.content.decode()


def test_a_person_joins_once_and_an_existing_membership_is_kept(acme):
    workspace, owner = acme
    workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)
    ann = UserFactory(username="ann", email="ann@example.com")
    joined = workspace_join_by_email_domain(user=ann, email="Ann@EXAMPLE.com")
    assert joined is not None
    assert joined.role == Role.VIEWER
    joined.delete()
    assert workspace_join_by_email_domain(user=ann, email="ann@example.com") is None
    assert not Membership.objects.filter(user=ann, workspace=workspace).exists()

    editor = UserFactory(username="ed", email="ed@example.com")
    membership_set(workspace=workspace, user=editor, role="editor")
    assert workspace_join_by_email_domain(user=editor, email="ed@example.com") is None
    assert Membership.objects.get(user=editor, workspace=workspace).role == Role.EDITOR
    assert DomainJoin.objects.filter(workspace=workspace).count() == 2

    inactive = UserFactory(username="gone", email="gone@example.com", is_active=False)
    assert workspace_join_by_email_domain(user=inactive, email="gone@example.com") is None
    assert workspace_join_by_email_domain(user=ann, email="ann@elsewhere.org") is None


def test_the_admin_shows_a_workspaces_domains(acme, admin_client):
    workspace, owner = acme
    workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)
    page = admin_client.get(f"/admin/workspaces/workspace/{workspace.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode().lower()
    assert "single sign-on domains" in text
    assert 'value="example.com"' in text
