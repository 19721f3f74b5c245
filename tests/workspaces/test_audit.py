"""The audit log: each listed change writes one entry naming who did it (a person, a key
or the service), owners read it through GET /api/v1/audit-log (filtered, exported as CSV
and JSON), and the application can neither change nor delete an entry."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import api_key_create, api_key_revoke
from jobs import dead_letters
from jobs.models import DeadLetter, JobStatus
from reports.models import ReportTemplate
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.factories import PdfJobFactory, UserFactory, members_with_emails
from workspaces.audit import audit_changes
from workspaces.audit_export import changes_text
from workspaces.current import SESSION_KEY
from workspaces.invitations import invitation_create
from workspaces.models import AuditEntry, Role, SsoDomain
from workspaces.services import (
    LastOwner,
    membership_remove,
    membership_set,
    workspace_create,
    workspace_join_by_email_domain,
    workspace_quota_set,
    workspace_sso_set,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def team() -> dict[str, Any]:
    owner = UserFactory(username="fiona")
    workspace = workspace_create(name="Finance", owner=owner)
    key, raw = api_key_create(user=owner, workspace=workspace, role=Role.OWNER, name="ci")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    return {"owner": owner, "workspace": workspace, "key": key, "api": client}


def _actions(workspace: Any) -> list[str]:
    return list(
        AuditEntry.objects.filter(workspace=workspace)
        .order_by("pk")
        .values_list("action", flat=True)
    )


def test_template_changes_through_the_api_are_logged_with_the_key_as_actor(team):
    api = team["api"]
    assert (
        api.post(
            "/api/v1/templates",
            {"name": "Invoice", "slug": "invoice", "html": "<p>a</p>"},
            format="json",
        ).status_code
        == 201
    )
    assert (
        api.patch("/api/v1/templates/invoice", {"html": "<p>b</p>"}, format="json").status_code
        == 200
    )
    assert (
        api.patch("/api/v1/templates/invoice", {"name": "Invoice 2"}, format="json").status_code
        == 200
    )
    assert api.post("/api/v1/templates/invoice/publish").status_code == 200
    assert api.delete("/api/v1/templates/invoice").status_code == 200
    assert api.post("/api/v1/templates/invoice/restore").status_code == 200
    entries = list(
        AuditEntry.objects.filter(
            workspace=team["workspace"], target_type="reporttemplate"
        ).order_by("pk")
    )
    assert [(e.action, e.changes) for e in entries] == [
        ("template.created", {}),
        ("template.published", {"version": 1}),
        ("template.changed", {"fields": ["html"], "draft": 2}),  # a draft: jobs render v1
        ("template.changed", {"fields": ["name"]}),  # a rename makes no new version
        ("template.published", {"version": 2}),
        ("template.archived", {}),
        ("template.restored", {}),
    ]
    prefix = team["key"].prefix
    assert {e.actor for e in entries} == {f"key {prefix}… (fiona)"}
    assert {e.actor_key for e in entries} == {prefix}
    assert {e.target_id for e in entries} == {"invoice"}


def test_keys_members_quota_and_dead_letters_are_logged(team, sent_tasks):
    owner, workspace = team["owner"], team["workspace"]
    viv = UserFactory(username="viv", email="viv@example.com")
    membership_set(workspace=workspace, user=viv, role="viewer", by=owner)
    membership_set(workspace=workspace, user=viv, role="editor", by=owner)
    membership_set(workspace=workspace, user=viv, role="editor", by=owner)  # no change: no entry
    membership_remove(workspace=workspace, user=viv, by=owner)
    api_key_revoke(user=owner, key_id=team["key"].pk)
    workspace_quota_set(workspace=workspace, by=owner, jobs_per_day=10)
    workspace_quota_set(workspace=workspace, by=owner, jobs_per_day=10)  # same: no entry
    failed = PdfJobFactory(owner=owner, workspace=workspace, status=JobStatus.FAILED)
    letter = DeadLetter.objects.create(job=failed, error="x", error_code="timeout")
    assert dead_letters.dead_letter_redrive(dead_letter=letter, by=owner) is not None
    dead_letters.dead_letters_discard(
        dead_letters=DeadLetter.objects.filter(pk=letter.pk), by=owner
    )
    assert _actions(workspace) == [
        "workspace.created",  # by the fixture's create_workspace
        "key.created",
        "member.added",
        "member.role_changed",
        "member.removed",
        "key.revoked",
        "quota.changed",
        "dead_letter.redriven",
        "dead_letter.discarded",
    ]
    changed = AuditEntry.objects.get(workspace=workspace, action="member.role_changed")
    assert (changed.actor, changed.target, changed.changes) == (
        "fiona",
        "viv <viv@example.com>",
        {"role": ["viewer", "editor"]},
    )
    quota = AuditEntry.objects.get(workspace=workspace, action="quota.changed")
    assert quota.changes == {"jobs_per_day": [None, 10]}
    redriven = AuditEntry.objects.get(workspace=workspace, action="dead_letter.redriven")
    assert redriven.target_id == str(failed.job_id)


def test_beat_redriving_is_logged_as_the_system(team, sent_tasks):
    failed = PdfJobFactory(
        owner=team["owner"], workspace=team["workspace"], status=JobStatus.FAILED
    )
    DeadLetter.objects.create(job=failed, error="x")
    assert dead_letters.dead_letters_redrive_due() == 1
    entry = AuditEntry.objects.get(action="dead_letter.redriven")
    assert (entry.actor, entry.actor_user) == ("system", None)


def test_the_last_owner_can_be_neither_removed_nor_demoted(team):
    owner, workspace = team["owner"], team["workspace"]
    with pytest.raises(LastOwner, match="only owner"):
        membership_remove(workspace=workspace, user=owner, by=owner)
    with pytest.raises(LastOwner):
        membership_set(workspace=workspace, user=owner, role="editor", by=owner)
    second = UserFactory()
    membership_set(workspace=workspace, user=second, role="owner", by=owner)
    assert membership_remove(workspace=workspace, user=owner, by=second)


def test_entries_are_append_only(team):
    entry = AuditEntry.objects.filter(workspace=team["workspace"]).first()
    assert entry is not None
    entry.action = "forged"
    with pytest.raises(TypeError):
        entry.save()
    with pytest.raises(TypeError):
        entry.delete()
    with pytest.raises(TypeError):
        AuditEntry.objects.filter(pk=entry.pk).update(action="forged")
    with pytest.raises(TypeError):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    assert AuditEntry.objects.get(pk=entry.pk).action == "key.created"


def _seeded(team) -> None:
    owner, workspace = team["owner"], team["workspace"]
    for name in ("alpha", "bravo"):
        membership_set(
            workspace=workspace, user=UserFactory(username=name), role="viewer", by=owner
        )
    workspace_quota_set(workspace=workspace, by=owner, pages_per_day=5)


def test_owners_read_filter_and_export_the_log(team):
    _seeded(team)
    api = team["api"]
    everything = api.get("/api/v1/audit-log")
    assert everything.status_code == 200, everything.content
    rows = everything.json()
    assert [r["action"] for r in rows] == [
        "quota.changed",
        "member.added",
        "member.added",
        "key.created",
        "workspace.created",
    ]
    assert set(rows[0]) >= {"at", "actor", "action", "target"}
    added = api.get("/api/v1/audit-log", {"action": "member.added"}).json()
    assert sorted(r["target"] for r in added) == ["alpha", "bravo"]
    assert len(api.get("/api/v1/audit-log", {"actor": "fiona"}).json()) == 4
    assert api.get("/api/v1/audit-log", {"actor": "nobody"}).json() == []
    assert [r["target"] for r in api.get("/api/v1/audit-log", {"q": "bravo"}).json()] == ["bravo"]
    later = (timezone.now() + timedelta(minutes=1)).isoformat()
    assert api.get("/api/v1/audit-log", {"since": later}).json() == []
    assert len(api.get("/api/v1/audit-log", {"until": later}).json()) == 5  # with workspace.created

    exported = api.get("/api/v1/audit-log", {"format": "csv", "action": "member.added"})
    assert exported.status_code == 200
    assert exported["Content-Type"].startswith("text/csv")
    assert "attachment" in exported["Content-Disposition"]
    table = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert sorted(row["target"] for row in table) == ["alpha", "bravo"]
    assert json.loads(table[0]["changes"]) == {"role": [None, "viewer"]}

    as_json = api.get("/api/v1/audit-log", {"format": "json"})
    assert as_json["Content-Disposition"].endswith('.json"')
    assert len(json.loads(as_json.content)) == 5  # with workspace.created


def test_a_bad_filter_is_a_400_naming_the_actions(team):
    response = team["api"].get("/api/v1/audit-log", {"action": "template.deleted"})
    assert response.status_code == 400
    assert "template.created" in response.content.decode()
    backwards = team["api"].get(
        "/api/v1/audit-log", {"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}
    )
    assert backwards.status_code == 400
    unknown = team["api"].get("/api/v1/audit-log", {"format": "xml"})
    assert unknown.status_code == 400
    assert "format=csv or format=json" in unknown.json()["error"]
    by_accept = team["api"].get("/api/v1/audit-log", HTTP_ACCEPT="text/csv")
    assert by_accept.content.decode().startswith("at,actor,action,")


@pytest.mark.parametrize("role", ["editor", "requester", "viewer", "operator"])
def test_only_owners_read_the_log(team, role):
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    response = client.get("/api/v1/audit-log", {"format": "csv"})
    assert response.status_code == 403
    assert "audit.view" in response.content.decode()


def test_the_csv_keeps_formula_looking_text_as_text(team):
    api = team["api"]
    api.post(
        "/api/v1/templates", {"name": "=HYPERLINK(1)", "slug": "f", "html": "x"}, format="json"
    )
    exported = api.get("/api/v1/audit-log", {"format": "csv", "action": "template.created"})
    row = next(csv.DictReader(io.StringIO(exported.content.decode())))
    assert row["target"] == "'=HYPERLINK(1) (f)"


def test_the_admin_lists_entries_read_only(team):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/workspaces/auditentry/", {"q": "key.created"})
    assert page.status_code == 200
    assert "key.created" in page.content.decode()
    entry = AuditEntry.objects.first()
    assert entry is not None
    assert client.post(f"/admin/workspaces/auditentry/{entry.pk}/delete/").status_code == 403
    assert client.get("/admin/workspaces/auditentry/add/").status_code == 403


def test_the_owners_page_searches_and_exports(team):
    _seeded(team)
    client = Client()
    client.force_login(team["owner"])
    session = client.session
    session["workspace_id"] = team["workspace"].pk
    session.save()
    page = client.get("/audit/", {"q": "bravo", "action": "", "since": ""})
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-action="member.added"' in text
    assert "bravo" in text
    assert "alpha" not in text
    exported = client.get("/audit/", {"action": "member.added", "format": "csv"})
    assert exported["Content-Type"].startswith("text/csv")
    assert sorted(r["target"] for r in csv.DictReader(io.StringIO(exported.content.decode()))) == [
        "alpha",
        "bravo",
    ]
    as_json = client.get("/audit/", {"format": "json"})
    assert len(json.loads(as_json.content)) == 5  # with workspace.created
    assert client.get("/audit/", {"action": "nope"}).status_code == 400
    viewer = UserFactory(username="vic")
    membership_set(workspace=team["workspace"], user=viewer, role="viewer")
    client.force_login(viewer)
    session = client.session
    session["workspace_id"] = team["workspace"].pk
    session.save()
    assert client.get("/audit/").status_code == 403


def _admin() -> Client:
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_quota_and_members_changed_in_the_admin_are_logged_as_the_admin(team):
    workspace = team["workspace"]
    client = _admin()
    form = {name: "" for name in ("jobs_per_day", "jobs_per_month", "pages_per_month")}
    form.update(
        {
            "workspace": workspace.pk,
            "pages_per_day": "7",
            "bytes_per_day": "",
            "bytes_per_month": "",
        }
    )
    assert client.post("/admin/workspaces/workspacequota/add/", form).status_code == 302
    quota = AuditEntry.objects.get(workspace=workspace, action="quota.changed")
    assert (quota.actor, quota.changes) == ("root", {"pages_per_day": [None, 7]})
    owner_row = workspace.memberships.get()
    change = {
        "name": workspace.name,
        "slug": workspace.slug,
        "sso_role": workspace.sso_role,
        "memberships-TOTAL_FORMS": "1",
        "memberships-INITIAL_FORMS": "1",
        "memberships-0-id": owner_row.pk,
        "memberships-0-workspace": workspace.pk,
        "memberships-0-user": team["owner"].pk,
        "memberships-0-role": "viewer",  # the only owner: refused
        "quota-TOTAL_FORMS": "0",
        "quota-INITIAL_FORMS": "0",
        "sso_domains-TOTAL_FORMS": "0",
        "sso_domains-INITIAL_FORMS": "0",
    }
    page = client.post(f"/admin/workspaces/workspace/{workspace.pk}/change/", change, follow=True)
    assert "only owner of Finance" in page.content.decode()
    owner_row.refresh_from_db()
    assert owner_row.role == "owner"
    assert not AuditEntry.objects.filter(action="member.role_changed").exists()


def test_a_template_saved_in_the_admin_is_logged(team):
    client = _admin()
    form = {
        "name": "Letter",
        "slug": "letter",
        "engine": "handlebars",
        "renderer": "xhtml2pdf",
        "html": "<p>{{who}}</p>",
        "css": "",
        "schema": '{"type": "object"}',
        "sample_data": '{"who": "Ada"}',
        "workspace": team["workspace"].pk,
        "owner": team["owner"].pk,
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "0",
    }
    added = client.post("/admin/reports/reporttemplate/add/", form)
    assert added.status_code == 302, added.content[:2000]
    template = ReportTemplate.objects.get(slug="letter", workspace=team["workspace"])
    client.post(f"/admin/reports/reporttemplate/{template.pk}/change/", form | {"name": "Letter 2"})
    entries = AuditEntry.objects.filter(workspace=team["workspace"], target_type="reporttemplate")
    assert list(entries.order_by("pk").values_list("action", "actor", "changes")) == [
        ("template.created", "root", {}),
        ("template.published", "root", {"version": 1}),
        ("template.changed", "root", {"fields": ["name"]}),
    ]


def _entry(workspace: Any, action: str) -> AuditEntry:
    (entry,) = AuditEntry.objects.filter(workspace=workspace, action=action)
    return entry


def test_sso_settings_and_a_domain_join_are_logged(team):
    owner, workspace = team["owner"], team["workspace"]
    owner.email = "fiona@finance.test"
    owner.save()
    workspace_sso_set(workspace=workspace, domains=["finance.test"], role="viewer", by=owner)
    workspace_sso_set(workspace=workspace, domains=["finance.test"], role="viewer", by=owner)
    changed = _entry(workspace, "sso.changed")  # the same settings again: no entry
    assert (changed.actor, changed.target_type, changed.target_id) == (
        "fiona",
        "sso",
        str(workspace.pk),
    )
    assert changed.changes == {"domains": [[], ["finance.test"]], "role": ["requester", "viewer"]}
    SsoDomain.objects.filter(workspace=workspace).update(verified=True)
    ann = UserFactory(username="ann", email="ann@finance.test")
    assert workspace_join_by_email_domain(user=ann, email="ann@finance.test") is not None
    joined = _entry(workspace, "member.joined_by_domain")
    assert (joined.actor, joined.actor_user, joined.target_id, joined.target) == (
        "ann",
        ann,
        str(ann.pk),
        "ann <ann@finance.test>",
    )
    assert joined.changes == {"role": "viewer", "domain": "finance.test"}


def test_a_certificate_upload_is_logged_with_the_key_as_actor(team):
    answer = team["api"].post(
        "/api/v1/signing-certificates",
        {
            "name": "Studio",
            "pkcs12": SimpleUploadedFile("studio.p12", make_pkcs12()),
            "password": "p12-pass",
        },
        format="multipart",
    )
    assert answer.status_code == 201, answer.content
    entry = _entry(team["workspace"], "certificate.uploaded")
    assert (entry.actor, entry.actor_key, entry.actor_user) == (
        f"key {team['key'].prefix}… (fiona)",
        team["key"].prefix,
        team["owner"],
    )
    assert (entry.target_type, entry.target_id, entry.target) == (
        "certificate",
        answer.json()["id"],
        "Studio",
    )


def test_schedule_create_update_run_now_and_delete_are_logged_with_their_deliveries(
    team, sent_tasks
):
    api, workspace = team["api"], team["workspace"]
    made = api.post(
        "/api/v1/templates",
        {"name": "Weekly", "slug": "weekly", "html": "<p>{{title}}</p>"},
        format="json",
    )
    assert made.status_code == 201, made.content
    members_with_emails(workspace, "boss@example.com")
    body = {
        "template": "weekly",
        "data": {"title": "Week"},
        "cron": "0 7 * * 1",
        "deliveries": [{"type": "email", "to": ["boss@example.com"]}],
    }
    created = api.post("/api/v1/schedules", body, format="json")
    assert created.status_code == 201, created.content
    schedule_id = created.json()["schedule_id"]
    url = f"/api/v1/schedules/{schedule_id}"
    outside = [{"type": "webhook", "url": "https://hooks.example.net/in"}]
    assert api.patch(url, {"deliveries": outside}, format="json").status_code == 200
    assert api.post(f"{url}/run").status_code == 202
    assert api.delete(url).status_code == 204
    actor = f"key {team['key'].prefix}… (fiona)"
    entries = {
        action: _entry(workspace, action)
        for action in ("schedule.created", "schedule.changed", "schedule.run_now")
    }
    entries["schedule.deleted"] = _entry(workspace, "schedule.deleted")
    for entry in entries.values():
        assert (entry.actor, entry.target_type, entry.target_id) == (actor, "schedule", schedule_id)
    assert entries["schedule.created"].changes["deliveries"] == ["email: boss@example.com"]
    assert entries["schedule.changed"].changes == {
        "fields": ["deliveries"],
        "deliveries": [["email: boss@example.com"], ["webhook: https://hooks.example.net/in"]],
    }
    assert entries["schedule.run_now"].changes["deliveries"] == [
        "webhook: https://hooks.example.net/in"
    ]
    assert entries["schedule.deleted"].changes["deliveries"] == [
        "webhook: https://hooks.example.net/in"
    ]


def test_withdrawing_an_invitation_is_logged(team):
    owner, workspace = team["owner"], team["workspace"]
    invitation = invitation_create(
        workspace=workspace, email="nina@example.com", role="editor", by=owner
    )
    client = Client()
    client.force_login(owner)
    session = client.session
    session[SESSION_KEY] = workspace.pk
    session.save()
    assert client.post(f"/invitations/{invitation.pk}/withdraw").status_code == 302
    assert client.post(f"/invitations/{invitation.pk}/withdraw").status_code == 302  # no entry
    entry = _entry(workspace, "invitation.withdrawn")
    assert (entry.actor, entry.actor_user, entry.target_type, entry.target_id, entry.target) == (
        "fiona",
        owner,
        "invitation",
        str(invitation.pk),
        "nina@example.com",
    )
    assert entry.changes == {"role": "editor"}


@pytest.mark.parametrize(
    ("action", "changes", "lines"),
    [
        ("member.role_changed", {"role": ["viewer", "editor"]}, ["role: viewer → editor"]),
        ("member.removed", {"role": ["editor", None]}, ["role: editor → none"]),
        ("member.added", {"role": [None, "viewer"]}, ["role: none → viewer"]),
        ("template.changed", {"fields": ["css", "html"]}, ["fields: css, html"]),
        ("quota.changed", {"jobs_per_day": [None, 10]}, ["jobs_per_day: none → 10"]),
        ("sso.changed", {"domains": [["a.com"], []]}, ["domains: a.com → none"]),
        ("sso.domain_verified", {"verified": [False, True]}, ["verified: no → yes"]),
        (
            "schedule.created",
            {"deliveries": ["ops@example.com", "https://example.com/hook"]},
            ["deliveries: ops@example.com, https://example.com/hook"],
        ),
        (
            "workspace.created",
            {"owner": "fiona", "slug": "finance"},
            ["owner: fiona", "slug: finance"],
        ),
        ("key.created", {}, []),
    ],
)
def test_changes_read_as_text_not_python_reprs(action, changes, lines):
    assert changes_text(action, changes) == lines


def test_the_owners_page_shows_changes_without_python_reprs(team):
    owner, workspace = team["owner"], team["workspace"]
    viv = UserFactory(username="viv")
    membership_set(workspace=workspace, user=viv, role="viewer", by=owner)
    membership_set(workspace=workspace, user=viv, role="editor", by=owner)
    client = Client()
    client.force_login(owner)
    session = client.session
    session["workspace_id"] = workspace.pk
    session.save()
    text = client.get("/audit/").content.decode()
    assert "role: viewer → editor" in text
    assert "{&#x27;" not in text
    assert "[&#x27;" not in text
    assert "None" not in text


def test_audit_changes_keep_before_and_after_of_what_differs_only():
    before = {"role": "viewer", "domains": ["a.example"], "paused": False}
    after = {"role": "requester", "domains": ["a.example"], "paused": None}
    assert audit_changes(before, after) == {
        "role": ["viewer", "requester"],
        "paused": [False, None],
    }
    assert audit_changes(before, {"domains": ["a.example"]}) == {}
