"""An event reaches the followers of each of its groups through the real channel layer, in
one Redis round trip when nobody follows any of them (jobs.live.events.groups_send)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
from channels.layers import channel_layers, get_channel_layer

from jobs.live.events import (
    EVENT_TYPE,
    group_publish,
    job_event_announce,
    job_event_payload,
    job_event_publish,
    job_group,
    workspace_group,
)
from tests.bench.round_trips import round_trips_counted

pytestmark = [pytest.mark.process, pytest.mark.timeout(30)]


_loops: list[asyncio.AbstractEventLoop] = []  # the running test's one loop
_follows: list[tuple[str, str]] = []  # the running test's (group, channel) memberships


@pytest.fixture(autouse=True)
def one_loop_and_layer() -> Iterator[None]:
    """A test's follows and receives run on one event loop, with a channel layer of its
    own. channels_redis binds a layer's lock of the receiving channel to the loop that first
    waits on it (a second receive while the first one's clean-up still holds it): with a
    new loop per call (asyncio.run), a receive failed "bound to a different event loop"
    whenever the clean-up was slow, as on a loaded machine."""
    channel_layers.backends = {}
    loop = asyncio.new_event_loop()
    _loops.append(loop)
    try:
        yield
    finally:
        _loops.remove(loop)
        pending = asyncio.all_tasks(loop)  # the receives' clean-ups
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        # Memberships stay in Redis for a day: a later test of this process whose job has
        # the same workspace (ids are reused once a test's rows are rolled back or flushed)
        # had followers and sent its events to them (a one-page job's round trips counted
        # a group send).
        loop.run_until_complete(_unfollow_all())
        loop.close()
        channel_layers.backends = {}


async def _unfollow_all() -> None:
    layer = get_channel_layer()
    while _follows:
        await layer.group_discard(*_follows.pop())


def _follow(group: str) -> str:
    async def add() -> str:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        _follows.append((group, channel))
        return channel

    return _loops[-1].run_until_complete(add())


def _received(channel: str, count: int) -> list[dict]:
    async def take() -> list[dict]:
        layer = get_channel_layer()
        return [await asyncio.wait_for(layer.receive(channel), timeout=5) for _ in range(count)]

    return _loops[-1].run_until_complete(take())


def test_followers_of_the_job_and_of_its_workspace_each_get_the_event_once():
    job_id = str(uuid.uuid4())
    workspace_id = 10_000 + uuid.uuid4().int % 1000
    of_job, of_workspace = _follow(job_group(job_id)), _follow(workspace_group(workspace_id))
    job_event_publish({"job_id": job_id, "status": "processing"}, workspace_id=workspace_id)
    job_event_publish({"job_id": job_id, "status": "completed"}, workspace_id=workspace_id)
    for channel in (of_job, of_workspace):
        received = _received(channel, 2)
        assert [m["type"] for m in received] == [EVENT_TYPE] * 2
        assert [m["event"]["status"] for m in received] == ["processing", "completed"]


def test_only_the_followed_group_gets_a_send():
    job_id = str(uuid.uuid4())
    workspace_id = 10_000 + uuid.uuid4().int % 1000
    of_workspace = _follow(workspace_group(workspace_id))
    job_event_publish({"job_id": job_id, "status": "completed"}, workspace_id=workspace_id)
    assert _received(of_workspace, 1)[0]["event"]["job_id"] == job_id
    group_publish([job_group(job_id)], {"type": EVENT_TYPE, "event": {}}, what="a test")


def test_an_event_nobody_follows_is_one_redis_command():
    job_id = str(uuid.uuid4())
    job_event_publish({"job_id": job_id, "status": "processing"}, workspace_id=1)  # warm
    with round_trips_counted(sql=False) as counted:
        job_event_publish({"job_id": job_id, "status": "completed"}, workspace_id=99_999)
    # Before: ZREMRANGEBYSCORE and ZRANGE for each of the two groups.
    assert dict(counted.redis) == {"EVAL": 1}
    assert dict(counted.in_scripts) == {"ZREMRANGEBYSCORE": 2, "ZCARD": 2}


@pytest.mark.django_db
def test_a_job_event_is_built_only_when_someone_follows(monkeypatch):
    from jobs.live import events
    from tests.factories import PdfJobFactory

    job = PdfJobFactory()
    built = []

    def payload(of):
        built.append(of)
        return job_event_payload(of)

    monkeypatch.setattr(events, "job_event_payload", payload)
    job_event_announce(job, workspace_id=99_999, to_job=False)
    assert built == []  # nobody follows the workspace: no payload, the one EVAL only
    of_workspace = _follow(workspace_group(job.workspace_id))
    job_event_announce(job, workspace_id=job.workspace_id, to_job=False)
    assert built == [job]
    assert _received(of_workspace, 1)[0]["event"] == job_event_payload(job)
