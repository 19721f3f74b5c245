"""A schedule runs as its creator: removed from the workspace, deactivated, or the key it
was made with revoked, it is paused with the reason, and the due claim never runs it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import api_key_create, api_key_revoke
from schedules import services
from schedules.models import Schedule, ScheduleRun
from schedules.serializers import ScheduleOutputSerializer
from tests.factories import ReportTemplateFactory, UserFactory
from workspaces.models import Membership
from workspaces.services import membership_remove, membership_set, workspace_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def started(sent_tasks):
    return sent_tasks


@pytest.fixture
def team():
    owner = UserFactory(username="team-owner")
    workspace = workspace_create(name="Team", owner=owner)
    ReportTemplateFactory(owner=owner, workspace=workspace, slug="monthly", html="<p>x</p>")
    member = UserFactory(username="team-member")
    membership_set(workspace=workspace, user=member, role="editor", by=owner)
    return workspace, owner, member


def _create(workspace, user, api_key=None) -> Schedule:
    return services.schedule_create(
        workspace=workspace,
        created_by=user,
        api_key=api_key,
        fields={"template": "monthly", "data": {}, "cron": "* * * * *"},
    )


def _due() -> list[ScheduleRun]:
    return services.schedules_claim_due(now=timezone.now() + timedelta(minutes=5))


def test_removing_the_creator_pauses_their_schedules_with_the_reason(team):
    workspace, owner, member = team
    theirs, mine = _create(workspace, member), _create(workspace, owner)
    membership_remove(workspace=workspace, user=member, by=owner)
    theirs.refresh_from_db()
    assert theirs.paused
    assert theirs.next_run_at is None
    assert "team-member was removed from the workspace" in theirs.paused_reason
    assert [run.schedule_id for run in _due()] == [mine.pk]
    # A person resuming it does not make it run as the removed creator.
    services.schedule_update(schedule=theirs, fields={"paused": False}, by=owner)
    assert theirs.paused_reason == ""
    assert _due() == []
    theirs.refresh_from_db()
    assert theirs.paused
    assert "no longer a member" in theirs.paused_reason


def test_revoking_the_key_pauses_the_schedules_it_made(team):
    workspace, owner, member = team
    key, _ = api_key_create(user=member, workspace=workspace, name="ci")
    by_key, by_browser = _create(workspace, member, api_key=key), _create(workspace, member)
    api_key_revoke(user=owner, key_id=key.pk)
    by_key.refresh_from_db()
    by_browser.refresh_from_db()
    assert by_key.paused
    assert f"({key.prefix}…) was revoked" in by_key.paused_reason
    assert not by_browser.paused
    assert [run.schedule_id for run in _due()] == [by_browser.pk]


def test_the_due_claim_skips_and_pauses_a_deactivated_creator(team):
    workspace, _owner, member = team
    schedule = _create(workspace, member)
    member.is_active = False
    member.save(update_fields=["is_active"])  # the admin's user form: no service announces it
    assert _due() == []
    schedule.refresh_from_db()
    assert schedule.paused
    assert schedule.paused_reason == "its creator's account is deactivated"
    assert not ScheduleRun.objects.exists()


def test_the_due_claim_skips_a_creator_gone_by_any_path(team):
    workspace, _owner, member = team
    schedule = _create(workspace, member)
    Membership.objects.filter(workspace=workspace, user=member).delete()
    assert _due() == []
    schedule.refresh_from_db()
    assert schedule.paused
    assert "no longer a member" in schedule.paused_reason


def test_the_api_shows_the_reason(team):
    workspace, owner, member = team
    schedule = _create(workspace, member)
    membership_remove(workspace=workspace, user=member, by=owner)
    schedule.refresh_from_db()
    body = ScheduleOutputSerializer(schedule).data
    assert body["paused"] is True
    assert "was removed" in body["paused_reason"]


def test_the_due_claim_takes_workspaces_in_turns(team, started):
    workspace, owner, _member = team
    busy = [_create(workspace, owner) for _ in range(3)]
    other_owner = UserFactory(username="other-owner")
    other = workspace_create(name="Other", owner=other_owner)
    ReportTemplateFactory(owner=other_owner, workspace=other, slug="monthly", html="<p>y</p>")
    quiet = _create(other, other_owner)
    # The busy workspace's ticks are all due earlier than the quiet one's.
    early = timezone.now() - timedelta(minutes=10)
    for n, schedule in enumerate(busy):
        Schedule.objects.filter(pk=schedule.pk).update(next_run_at=early + timedelta(seconds=n))
    Schedule.objects.filter(pk=quiet.pk).update(next_run_at=early + timedelta(minutes=1))
    runs = services.schedules_claim_due(now=timezone.now(), limit=2)
    assert {run.schedule.workspace_id for run in runs} == {workspace.pk, other.pk}
