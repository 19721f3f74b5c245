"""The dashboard's one socket (ws/jobs/) follows the session's current workspace: a
teammate's new job and its changes arrive, another workspace's never do."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.db import transaction

from jobs import services, transitions
from tests.async_db import closing as _closing
from tests.factories import PdfJobFactory, UserFactory
from tests.jobs.live.test_consumers import _Socket
from workspaces.current import SESSION_KEY
from workspaces.services import membership_set, workspace_create

pytestmark = pytest.mark.django_db(transaction=True)


def _submit(user, workspace):
    with transaction.atomic():
        return services.job_create(
            owner=user, workspace=workspace, html_template="<p>hi</p>", data={}
        )[0]


def test_a_members_socket_gets_the_teams_jobs_and_nobody_elses(sent_tasks):
    """The new job's message is recorded, not left in the broker (no worker here)."""
    fiona, viv = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=viv, role="viewer")
    older = PdfJobFactory(owner=fiona, workspace=team)
    outsider = PdfJobFactory()  # another workspace's

    async def scenario() -> list[dict]:
        ws = _Socket(None, viv)
        ws.scope["session"] = {SESSION_KEY: team.pk}
        assert (await ws.connect())["type"] == "websocket.accept"
        got = [await ws.receive_json_from(timeout=5)]  # the snapshot: the team's one job
        new = await sync_to_async(_submit)(fiona, team)
        await sync_to_async(transitions.job_claim)(job_id=outsider.job_id, worker="w")
        await sync_to_async(transitions.job_claim)(job_id=new.job_id, worker="w")
        got.append(await ws.receive_json_from(timeout=5))
        got.append(await ws.receive_json_from(timeout=5))
        await ws.send_json_to({"type": "ping"})
        got.append(await ws.receive_json_from(timeout=5))  # nothing of the outsider's came
        await ws.disconnect()
        return got

    snapshot, created, claimed, pong = asyncio.run(_closing(scenario()))
    assert snapshot["job_id"] == str(older.job_id)
    assert created["status"] == "queued"
    assert (claimed["job_id"], claimed["status"]) == (created["job_id"], "processing")
    assert pong == {"type": "pong"}
    assert [str(job_id) for job_id in sent_tasks.ids("job_enqueue")] == [created["job_id"]]


def test_without_a_chosen_workspace_the_socket_follows_the_persons_own():
    fiona, viv = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=viv, role="viewer")
    PdfJobFactory(owner=fiona, workspace=team)
    mine = PdfJobFactory(owner=viv)

    async def scenario() -> dict:
        ws = _Socket(None, viv)
        ws.scope["session"] = {}
        assert (await ws.connect())["type"] == "websocket.accept"
        first = await ws.receive_json_from(timeout=5)
        await ws.send_json_to({"type": "ping"})
        pong = await ws.receive_json_from(timeout=5)  # the snapshot had only one job
        await ws.disconnect()
        assert pong == {"type": "pong"}
        return first

    assert asyncio.run(_closing(scenario()))["job_id"] == str(mine.job_id)
