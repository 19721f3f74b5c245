"""The tenant is the workspace: a team's members and keys share one rate budget and one
key cap, and another workspace (a member's own included) has budgets of its own."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import api_key_create
from accounts.tenancy import tenant_id_for, tenant_of_job
from core.errors import Conflict
from tests.factories import PdfJobFactory, UserFactory
from workspaces.services import membership_set, workspace_create, workspace_personal

pytestmark = pytest.mark.django_db


def _client(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    return client


def test_keys_of_two_members_share_the_workspaces_rate(settings):
    settings.API_RATE_STATUS_READ = "3/min"
    fiona, omar = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=omar, role="owner")
    first = _client(api_key_create(user=fiona, workspace=team, role="viewer")[1])
    second = _client(api_key_create(user=omar, workspace=team, role="viewer")[1])
    own = _client(api_key_create(user=omar, role="viewer")[1])  # omar's own workspace
    answers = [c.get("/api/v1/jobs").status_code for c in (first, second, first, second)]
    assert answers == [200, 200, 200, 429]
    assert own.get("/api/v1/jobs").status_code == 200


def test_the_key_cap_counts_the_workspaces_keys_whoever_made_them(settings):
    settings.API_KEYS_MAX_PER_TENANT = 2
    fiona, omar = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=omar, role="owner")
    api_key_create(user=fiona, workspace=team)
    api_key_create(user=omar, workspace=team)
    with pytest.raises(Conflict, match="Finance already has 2 usable API keys"):
        api_key_create(user=fiona, workspace=team)
    api_key_create(user=fiona)  # her own workspace is another tenant


def test_a_jobs_tenant_is_its_workspace():
    fiona = UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    job = PdfJobFactory(owner=fiona, workspace=team)
    assert tenant_of_job(job) == tenant_id_for(workspace=team) == team.pk
    assert tenant_of_job(PdfJobFactory(owner=fiona)) == workspace_personal(user=fiona).pk


def test_the_keys_page_lists_the_workspaces_keys_with_who_made_them():
    from django.test import Client

    from workspaces.current import SESSION_KEY

    fiona, omar = UserFactory(username="fiona"), UserFactory(username="omar")
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=omar, role="owner")
    key, _ = api_key_create(user=omar, workspace=team, role="requester", name="billing")
    client = Client()
    client.force_login(fiona)
    session = client.session
    session[SESSION_KEY] = team.pk
    session.save()
    page = client.get("/keys/").content.decode()
    row = page.split(f'data-key-prefix="{key.prefix}"', 1)[1].split("</tr>", 1)[0]
    assert "billing" in row
    assert "requester" in row
    assert '<td class="col-created" data-made-by>omar</td>' in row
