"""Invitations by email (the mail read back from the file backend, the link accepted
once; used, expired and altered links answer a page that says so), removal of members
(the last owner refused; a removed member's live stream closes) and ownership transfer."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient, Client
from django.utils import timezone

from tests.async_db import closing as _closing
from tests.factories import PdfJobFactory, UserFactory
from tests.jobs.live.test_consumers import _Socket
from tests.mail_files import body_of, mails_in, subject_of
from workspaces.current import SESSION_KEY
from workspaces.invitations import invitation_create, invitation_token
from workspaces.models import AuditEntry, Invitation, Membership
from workspaces.services import membership_remove, membership_set, workspace_create

LINK = re.compile(r"http://\S+/invitations/(\S+)/")


def _in(client: Client, user: Any, workspace: Any) -> Client:
    client.force_login(user)
    session = client.session
    session[SESSION_KEY] = workspace.pk
    session.save()
    return client


@pytest.fixture
def team(db) -> dict[str, Any]:
    owner = UserFactory(username="fiona", email="fiona@example.com")
    workspace = workspace_create(name="Finance", owner=owner)
    return {"owner": owner, "workspace": workspace, "client": _in(Client(), owner, workspace)}


@pytest.fixture
def mail_dir(settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.PUBLIC_BASE_URL = "http://testserver"
    return tmp_path / "mail"


def test_an_invited_address_signs_up_through_the_mailed_link_once(
    team, mail_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        sent = team["client"].post("/members/", {"email": "Nina@Example.com", "role": "editor"})
    assert sent.status_code == 302
    (mail,) = mails_in(mail_dir, to="nina@example.com")
    assert "Finance" in subject_of(mail)
    body = body_of(mail)
    assert "fiona invites you" in body
    assert "as editor" in body
    link = LINK.search(body)
    assert link is not None
    path = f"/invitations/{link.group(1)}/"

    visitor = Client()
    page = visitor.get(path)
    assert page.status_code == 200
    assert "nina@example.com" in page.content.decode()
    joined = visitor.post(
        path, {"username": "nina", "password1": "a-Long-pass-42", "password2": "a-Long-pass-42"}
    )
    assert joined.status_code == 302
    nina = get_user_model().objects.get(username="nina")
    assert nina.email == "nina@example.com"
    assert Membership.objects.get(user=nina, workspace=team["workspace"]).role == "editor"
    assert visitor.session[SESSION_KEY] == team["workspace"].pk  # she works in it at once
    assert visitor.get("/").status_code == 200

    again = Client().get(path)
    assert again.status_code == 410
    assert "was used already" in again.content.decode()
    replay = Client().post(
        path, {"username": "eve", "password1": "a-Long-pass-42", "password2": "a-Long-pass-42"}
    )
    assert replay.status_code == 410
    assert not get_user_model().objects.filter(username="eve").exists()
    actions = list(
        AuditEntry.objects.filter(workspace=team["workspace"])
        .order_by("pk")
        .values_list("action", "actor")
    )
    assert actions[-2:] == [("member.invited", "fiona"), ("member.added", "nina")]


def test_a_signed_in_person_accepts_with_one_button(team):
    vic = UserFactory(username="vic", email="vic@example.com")
    invitation = invitation_create(
        workspace=team["workspace"], email="vic@example.com", role="viewer", by=team["owner"]
    )
    client = Client()
    client.force_login(vic)
    path = f"/invitations/{invitation_token(invitation)}/"
    assert "Accept the invitation" in client.get(path).content.decode()
    assert client.post(path).status_code == 302
    assert Membership.objects.get(user=vic, workspace=team["workspace"]).role == "viewer"


def test_only_the_invited_address_accepts_a_link(team):
    invitation = invitation_create(
        workspace=team["workspace"], email="vic@example.com", role="editor", by=team["owner"]
    )
    path = f"/invitations/{invitation_token(invitation)}/"
    mallory = Client()
    mallory.force_login(UserFactory(username="mallory", email="mallory@example.com"))
    page = mallory.get(path)
    assert page.status_code == 403
    assert "is for vic@example.com" in page.content.decode()
    refused = mallory.post(path)
    assert refused.status_code == 403
    assert not Membership.objects.filter(
        user__username="mallory", workspace=team["workspace"]
    ).exists()
    invitation.refresh_from_db()
    assert invitation.accepted_at is None  # the link still works for the invited person
    vic = Client()
    vic.force_login(UserFactory(username="vic", email="Vic@Example.com"))
    assert vic.post(path).status_code == 302
    assert (
        Membership.objects.get(user__username="vic", workspace=team["workspace"]).role == "editor"
    )


def test_expired_withdrawn_and_altered_links_say_why(team):
    invitation = invitation_create(
        workspace=team["workspace"], email="x@example.com", role="viewer", by=team["owner"]
    )
    token = invitation_token(invitation)
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    expired = Client().get(f"/invitations/{token}/")
    assert expired.status_code == 410
    assert "expired" in expired.content.decode()
    altered = Client().get(f"/invitations/{token[:-2]}xx/")
    assert altered.status_code == 410
    assert "not valid" in altered.content.decode()
    fresh = invitation_create(
        workspace=team["workspace"], email="y@example.com", role="viewer", by=team["owner"]
    )
    assert team["client"].post(f"/invitations/{fresh.pk}/withdraw").status_code == 302
    withdrawn = Client().get(f"/invitations/{invitation_token(fresh)}/")
    assert withdrawn.status_code == 410
    assert "withdrawn" in withdrawn.content.decode()


def test_inviting_a_member_again_is_refused_and_only_owners_invite(team):
    viv = UserFactory(username="viv", email="viv@example.com")
    membership_set(workspace=team["workspace"], user=viv, role="editor")
    again = team["client"].post("/members/", {"email": "viv@example.com", "role": "viewer"})
    assert again.status_code == 409
    assert "member of Finance already" in again.content.decode()
    editor = _in(Client(), viv, team["workspace"])
    refused = editor.post("/members/", {"email": "z@example.com", "role": "owner"})
    assert refused.status_code == 403
    assert "member.manage" in refused.content.decode()
    assert not Invitation.objects.filter(email="z@example.com").exists()


def test_the_last_owner_cannot_be_removed_and_ownership_moves(team):
    client, owner, workspace = team["client"], team["owner"], team["workspace"]
    refused = client.post(f"/members/{owner.pk}/remove")
    assert refused.status_code == 400
    assert "only owner of Finance" in refused.content.decode()
    demoted = client.post(f"/members/{owner.pk}/role", {"role": "viewer"})
    assert demoted.status_code == 400
    to_self = client.post(f"/members/{owner.pk}/transfer")
    assert to_self.status_code == 400
    assert "to themselves" in to_self.content.decode()
    assert Membership.objects.get(workspace=workspace, user=owner).role == "owner"
    viv = UserFactory(username="viv")
    membership_set(workspace=workspace, user=viv, role="editor")
    assert client.post(f"/members/{viv.pk}/transfer").status_code == 302
    roles = dict(
        Membership.objects.filter(workspace=workspace).values_list("user__username", "role")
    )
    assert roles == {"fiona": "editor", "viv": "owner"}
    assert client.get("/members/").status_code == 403  # fiona is an editor now
    new_owner = _in(Client(), viv, workspace)
    assert new_owner.post(f"/members/{owner.pk}/remove").status_code == 302
    assert not Membership.objects.filter(workspace=workspace, user=owner).exists()
    outsider = UserFactory(username="out")
    assert new_owner.post(f"/members/{outsider.pk}/remove").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_removing_a_member_closes_their_live_stream():
    fiona, viv = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=viv, role="viewer")
    job = PdfJobFactory(owner=fiona, workspace=team)
    signed_in = _in(Client(), viv, team)

    async def scenario() -> tuple[list[str], float]:
        client = AsyncClient()
        client.cookies = signed_in.cookies  # viv's session, working in the team
        response = await client.get(f"/api/v1/jobs/{job.job_id}/events")
        assert response.status_code == 200
        stream = response.streaming_content
        got = [await anext(stream), await anext(stream)]  # retry hint, the job's state
        started = time.monotonic()
        await sync_to_async(membership_remove)(workspace=team, user=viv, by=fiona)
        async for chunk in stream:  # only keep-alives may come before it ends
            got.append(chunk)
        return [c.decode() if isinstance(c, bytes) else c for c in got], time.monotonic() - started

    chunks, took = asyncio.run(_closing(scenario()))
    assert str(job.job_id) in chunks[1]
    assert took < 1.5  # announced on the member's group, not found at the next heartbeat
    assert all(c.startswith(":") for c in chunks[2:])


@pytest.mark.django_db(transaction=True)
def test_removing_a_member_closes_their_dashboard_socket():
    fiona, viv = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=viv, role="viewer")
    PdfJobFactory(owner=fiona, workspace=team)

    async def scenario() -> tuple[dict, float]:
        ws = _Socket(None, viv)
        ws.scope["session"] = {SESSION_KEY: team.pk}
        assert (await ws.connect())["type"] == "websocket.accept"
        await ws.receive_json_from(timeout=5)  # the team's job
        started = time.monotonic()
        await sync_to_async(membership_remove)(workspace=team, user=viv, by=fiona)
        closed = await ws.receive_output(timeout=5)
        took = time.monotonic() - started
        await ws.disconnect()
        return closed, took

    closed, took = asyncio.run(_closing(scenario()))
    assert closed["type"] == "websocket.close"
    assert took < 1.5


def test_a_workspace_sends_at_most_its_daily_invitations(team, settings):
    settings.WORKSPACE_INVITATIONS_PER_DAY = 2
    client = team["client"]
    for n in range(2):
        sent = client.post("/members/", {"email": f"p{n}@example.com", "role": "viewer"})
        assert sent.status_code == 302
    refused = client.post("/members/", {"email": "p9@example.com", "role": "viewer"})
    assert refused.status_code == 429
    assert "WORKSPACE_INVITATIONS_PER_DAY=2" in refused.content.decode()
    assert not Invitation.objects.filter(email="p9@example.com").exists()
    # A day later the window has moved on.
    Invitation.objects.update(created_at=timezone.now() - timedelta(days=1, minutes=1))
    assert (
        client.post("/members/", {"email": "p9@example.com", "role": "viewer"}).status_code == 302
    )
