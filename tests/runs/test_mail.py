"""A run is one thing to a person: its records (zip, combined or separate) mail nothing
each, and the run mails its owner once when it ends."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.files.base import ContentFile
from django.core.files.storage import storages

from jobs import transitions
from jobs.models import PdfJob
from reports.services import template_create
from runs.mail import run_notify_owner
from runs.models import RunOutput
from runs.records import records_from_list
from runs.services import run_create
from tests.factories import UserFactory
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db):
    return UserFactory(username="ada", email="ada@example.com")


@pytest.mark.parametrize("output", RunOutput.values)
def test_a_run_sends_one_mail_when_it_ends_and_none_per_record(
    owner, output, sent_tasks, django_capture_on_commit_callbacks
):
    template_create(owner=owner, name="Certificate", slug="certificate", html="<p>{{n}}</p>")
    with django_capture_on_commit_callbacks(execute=True):
        run = run_create(
            owner=owner,
            workspace=workspace_personal(user=owner),
            template_slug="certificate",
            records=records_from_list([{"n": n} for n in range(5)]),
            output=output,
        )
    jobs = list(PdfJob.objects.filter(batch_id=run.run_id))
    with django_capture_on_commit_callbacks(execute=True):
        for job in jobs[:4]:
            transitions.job_claim(job_id=job.job_id, worker="test:1")
            key = storages["reports"].save(f"{job.job_id}.pdf", ContentFile(b"%PDF-1.7"))
            transitions.job_complete(
                job_id=job.job_id, pdf_file=key, page_count=1, size_bytes=8, warnings=[]
            )
        assert sent_tasks.ids("run_notify_enqueue", "run_id") == []  # not ended yet
        transitions.job_claim(job_id=jobs[4].job_id, worker="test:1")
        transitions.job_fail(job_id=jobs[4].job_id, error="bad", code="template_error")
    assert sent_tasks.ids("notify_enqueue") == []  # no record mails on its own
    assert sent_tasks.ids("run_notify_enqueue", "run_id") == [run.run_id]

    assert run_notify_owner(run_id=run.run_id) == "sent"
    assert run_notify_owner(run_id=run.run_id) == "already_sent"
    (message,) = mail.outbox
    assert message.to == ["ada@example.com"]
    assert message.subject == "Your run “Certificate” finished: 4 of 5 PDFs, 1 failed"
    assert f"/runs/{run.run_id}/" in message.body
    assert "4 of 5 records rendered, 1 without a PDF" in message.body
