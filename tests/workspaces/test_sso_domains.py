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
from workspaces.models import AuditEntry, DomainJoin, Membership, Role, SsoDomain
from workspaces.selectors import workspace_sso
from workspaces.services import (
    membership_set,
    sso_domain_operator_save,
    workspace_create,
    workspace_join_by_email_domain,
    workspace_personal,
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
        "verified": [],
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
    assert answer.json() == {
        "workspace": "acme",
        "domains": ["example.com"],
        "verified": [],
        "role": "viewer",
    }
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
    SsoDomain.objects.filter(workspace=workspace).update(verified=True)  # an operator's approval
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


@pytest.mark.parametrize(
    "domain",
    [
        "gmail.com",
        "outlook.com",
        "hotmail.co.uk",
        "yahoo.fr",
        "icloud.com",
        "proton.me",
        "gmx.de",
        "gmx.net",
        "mail.gmx.net",
    ],
)
def test_a_public_mail_domain_is_refused_naming_why(domain):
    owner = UserFactory(username="gina", email=f"gina@{domain}")
    workspace = workspace_create(name="Gina's team", owner=owner)
    with pytest.raises(ApplicationError, match="is a public mail domain") as refused:
        workspace_sso_set(workspace=workspace, domains=[domain], role="viewer", by=owner)
    assert refused.value.http_status == 400
    assert not SsoDomain.objects.exists()


def test_an_operator_extends_the_public_mail_domains(acme, settings):
    workspace, owner = acme
    settings.SSO_PUBLIC_MAIL_DOMAINS = ["example.*"]
    with pytest.raises(ApplicationError, match=r"example\.com is a public mail domain"):
        workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)
    settings.SSO_PUBLIC_MAIL_DOMAINS = ["ample.com"]  # a look-alike suffix is not a match
    workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)


def test_a_personal_workspace_cannot_join_people_by_domain(acme):
    _, owner = acme
    personal = workspace_personal(user=owner)
    answer = _api(personal, owner).put(
        "/api/v1/workspace/sso", {"domains": ["example.com"], "role": "viewer"}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_sso_domain"
    assert "personal workspace" in answer.json()["error"]
    assert not SsoDomain.objects.exists()
    workspace_sso_set(workspace=personal, domains=[], role="viewer", by=owner)  # still fine


def test_a_public_mail_domain_through_the_api_is_a_400():
    owner = UserFactory(username="gus", email="gus@gmail.com")
    workspace = workspace_create(name="Gus's team", owner=owner)
    answer = _api(workspace, owner).put(
        "/api/v1/workspace/sso", {"domains": ["gmail.com"], "role": "viewer"}, format="json"
    )
    assert answer.status_code == 400
    assert "gmail.com is a public mail domain" in answer.json()["error"]


def test_an_unverified_domain_joins_nobody_until_an_operator_verifies_it(acme):
    workspace, owner = acme
    workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)
    ann = UserFactory(username="ann", email="ann@example.com")
    assert workspace_join_by_email_domain(user=ann, email="ann@example.com") is None
    assert not Membership.objects.filter(user=ann, workspace=workspace).exists()
    assert not DomainJoin.objects.exists()  # so the verified domain still joins her later
    assert _api(workspace, owner).get("/api/v1/workspace/sso").json()["verified"] == []

    operator = UserFactory(username="op", is_staff=True, is_superuser=True)
    row = SsoDomain.objects.get(domain="example.com")
    row.verified = True
    sso_domain_operator_save(row=row, by=operator)
    assert workspace_join_by_email_domain(user=ann, email="ann@example.com") is not None
    entry = AuditEntry.objects.get(workspace=workspace, action="sso.domain_verified")
    assert (entry.actor, entry.target, entry.changes) == (
        "op",
        "example.com",
        {"verified": [False, True]},
    )


def test_the_admin_verifies_a_domain_and_refuses_a_public_one(acme):
    workspace, owner = acme
    workspace_sso_set(workspace=workspace, domains=["example.com"], role="viewer", by=owner)
    row = SsoDomain.objects.get()
    operator = UserFactory(username="op", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(operator)
    url = f"/admin/workspaces/workspace/{workspace.pk}/change/"
    owner_row = workspace.memberships.get()
    form = {
        "name": workspace.name,
        "slug": workspace.slug,
        "sso_role": workspace.sso_role,
        "schedule_s3_destinations": "",
        "memberships-TOTAL_FORMS": "1",
        "memberships-INITIAL_FORMS": "1",
        "memberships-0-id": owner_row.pk,
        "memberships-0-workspace": workspace.pk,
        "memberships-0-user": owner.pk,
        "memberships-0-role": "owner",
        "quota-TOTAL_FORMS": "0",
        "quota-INITIAL_FORMS": "0",
        "sso_domains-TOTAL_FORMS": "1",
        "sso_domains-INITIAL_FORMS": "1",
        "sso_domains-0-id": row.pk,
        "sso_domains-0-workspace": workspace.pk,
        "sso_domains-0-domain": "example.com",
        "sso_domains-0-verified": "on",
    }
    saved = client.post(url, form)
    assert saved.status_code == 302, saved.content.decode()[:3000]
    assert SsoDomain.objects.get(pk=row.pk).verified
    form["sso_domains-0-domain"] = "gmail.com"
    refused = client.post(url, form, follow=True)
    assert "gmail.com is a public mail domain" in refused.content.decode().lower()
    assert SsoDomain.objects.get(pk=row.pk).domain == "example.com"
