"""Mail to a job's owner, end to end: a real web process and Celery worker (on a Redis of
the test's own), Django's file-based mail backend, jobs that complete, fail for good, or
go through retries first."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from django_celery_results.models import TaskResult

from accounts.models import SentNotification
from accounts.notifications import notification_preferences_set
from accounts.services import api_key_create
from jobs.dispatch import NOTIFY_TASK
from jobs.models import JobStatus, PdfJob
from jobs.owner_mail import failure_advice
from tests.chaos.conftest import wait_for, wait_terminal
from tests.factories import PdfJobFactory, UserFactory
from tests.mail_files import body_of, mails_in, subject_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def _mail_env(folder: Path, **extra: str) -> dict[str, str]:
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(folder),
        **extra,
    }


def _notify_results(chaos, job: PdfJob, count: int) -> list[str]:
    """The outcomes of the job's mail tasks, once `count` of them have run."""

    def finished() -> list[str] | None:
        rows = TaskResult.objects.filter(task_name=NOTIFY_TASK, task_args__contains=str(job.job_id))
        done = [json.loads(row.result) for row in rows if row.status == "SUCCESS"]
        return done if len(done) >= count else None

    return wait_for(finished, timeout=30, what=f"{count} mail task(s) of {job.job_id}", chaos=chaos)


def test_the_key_owner_is_mailed_a_working_link_on_completion_and_advice_on_failure(
    chaos, tmp_path
):
    web = chaos.web()
    mail = tmp_path / "mail"
    chaos.worker("mailer", **_mail_env(mail, PUBLIC_BASE_URL=web))
    owner = UserFactory(username="ada", email="ada@example.com")
    _, raw_key = api_key_create(user=owner, name="billing")
    # Jobs an API key submits mail its owner only when asked for (the account page).
    notification_preferences_set(
        user=owner, email_job_finished=True, browser_job_finished=True, email_api_jobs=True
    )
    with httpx.Client(base_url=web, headers={"X-API-Key": raw_key}, timeout=30) as api:
        wait_for(lambda: _up(api), timeout=30, what="the web process", chaos=chaos)
        ok = api.post(
            "/api/v1/generate-pdf-async",
            json={"html_template": "<h1>Hello {{name}}</h1>", "data": {"name": "Ada"}},
        ).json()
        bad = api.post(
            "/api/v1/generate-pdf-async",
            json={"html_template": "{{#each rows}}{{missing.deeper}}", "data": {}},
        )
        assert bad.status_code == 400  # a syntax error never becomes a job; a runtime one does
        broken = api.post(
            "/api/v1/generate-pdf-async",
            json={
                "engine": "jinja2",
                "html_template": "<p>{{ total + 'x' }}</p>",
                "data": {"total": 3},
            },
        ).json()
        done, failed = wait_terminal(
            chaos,
            PdfJob.objects.get(job_id=ok["job_id"]),
            PdfJob.objects.get(job_id=broken["job_id"]),
        )
        assert (done.status, failed.status) == (JobStatus.COMPLETED, JobStatus.FAILED)
        got = wait_for(
            lambda: len(mails_in(mail, to="ada@example.com")) == 2 and mails_in(mail),
            timeout=30,
            what="two mails",
            chaos=chaos,
        )
        by_subject = {subject_of(m): body_of(m) for m in got}
        ready = by_subject[f"Your report “{done.filename}” is ready"]
        link = next(line for line in ready.splitlines() if "/pdf?token=" in line)
        assert link.startswith(f"{web}/api/v1/jobs/{done.job_id}/pdf?token=")
        assert f"with the API key rk_{raw_key.split('_')[1]}_…" in ready
        pdf = httpx.get(link, timeout=30)  # the link is the credential: no key sent
        assert pdf.status_code == 200
        assert pdf.content.startswith(b"%PDF")
        failure = by_subject[f"Your report “{failed.filename}” failed"]
        assert failed.error
        assert failed.error in failure
        assert failure_advice(failed.error_code) in failure
        assert f"{web}/jobs/{failed.job_id}/" in failure


def test_a_cache_hit_mails_its_owner_like_a_render(chaos, tmp_path):
    web = chaos.web()
    mail = tmp_path / "mail"
    chaos.worker("mailer", **_mail_env(mail, PUBLIC_BASE_URL=web))
    owner = UserFactory(username="grace", email="grace@example.com")
    _, raw_key = api_key_create(user=owner, name="reports")
    notification_preferences_set(
        user=owner, email_job_finished=True, browser_job_finished=True, email_api_jobs=True
    )
    body = {"html_template": "<h1>Hello {{name}}</h1>", "data": {"name": "Grace"}}
    with httpx.Client(base_url=web, headers={"X-API-Key": raw_key}, timeout=30) as api:
        wait_for(lambda: _up(api), timeout=30, what="the web process", chaos=chaos)
        first = api.post("/api/v1/generate-pdf-async", json=body).json()
        (rendered,) = wait_terminal(chaos, PdfJob.objects.get(job_id=first["job_id"]))
        assert rendered.status == JobStatus.COMPLETED
        hit = api.post("/api/v1/generate-pdf-async", json={**body, "cache": True}).json()
        assert hit["status"] == "completed"  # no render: completed in the submit's answer
    got = wait_for(
        lambda: len(mails_in(mail, to="grace@example.com")) == 2 and mails_in(mail),
        timeout=30,
        what="a mail per job, the cached one too",
        chaos=chaos,
    )
    links = [line for m in got for line in body_of(m).splitlines() if "/pdf?token=" in line]
    assert sorted(link.split("/jobs/")[1].split("/")[0] for link in links) == sorted(
        [first["job_id"], hit["job_id"]]
    )


def _up(api: httpx.Client) -> bool:
    try:
        return api.get("/livez").status_code == 200
    except httpx.HTTPError:
        return False


def test_an_owner_who_turned_mail_off_gets_none_while_others_still_do(chaos, tmp_path):
    mail = tmp_path / "mail"
    chaos.worker("mailer", **_mail_env(mail))
    quiet = UserFactory(username="quiet", email="quiet@example.com")
    notification_preferences_set(user=quiet, email_job_finished=False, browser_job_finished=True)
    loud = UserFactory(username="loud", email="loud@example.com")
    quiet_job = PdfJobFactory(owner=quiet)
    chaos.send(quiet_job)
    wait_terminal(chaos, quiet_job)
    # The quiet job's mail would have been decided when it completed; the next job's mail
    # arriving shows the mail path works and that the worker has moved on.
    loud_job = PdfJobFactory(owner=loud)
    chaos.send(loud_job)
    wait_terminal(chaos, loud_job)
    wait_for(lambda: mails_in(mail, to="loud@example.com"), timeout=30, what="loud's mail")
    assert quiet_job.status == loud_job.status == JobStatus.COMPLETED
    assert mails_in(mail, to="quiet@example.com") == []
    assert not SentNotification.objects.filter(user=quiet).exists()


def test_retries_mail_nothing_and_each_final_state_mails_once(chaos, tmp_path):
    mail = tmp_path / "mail"
    # Report storage fails the first 3 saves of every file; 2 retries are allowed, and beat
    # re-drives nothing (so a job that runs out of retries has failed for good).
    chaos.worker(
        "mailer",
        concurrency=2,
        **_mail_env(
            mail,
            TEST_REPORT_STORAGE_BACKEND="tests.chaos.flaky_storage.FlakyStorage",
            CHAOS_STORAGE_FAILURES="3",
            PDF_MAX_RETRIES="2",
            PDF_MAX_ATTEMPTS="5",
            DLQ_MAX_RETRIES="0",
        ),
    )
    owner = UserFactory(username="grace", email="grace@example.com")
    recovers = PdfJobFactory(owner=owner, options={"filename": "recovers.pdf"})
    gives_up = PdfJobFactory(owner=owner, options={"filename": "gives-up.pdf"})
    # One failure already counted for this file: it fails twice and completes on attempt 3.
    counter = chaos.media / "reports" / f".failures-{recovers.job_id}.pdf"
    counter.parent.mkdir(parents=True, exist_ok=True)
    counter.write_text("1")
    chaos.send(recovers)
    chaos.send(gives_up)
    wait_terminal(chaos, recovers, gives_up, timeout=90)
    assert (recovers.status, recovers.attempts) == (JobStatus.COMPLETED, 3)
    assert (gives_up.status, gives_up.error_code) == (JobStatus.FAILED, "retries_exhausted")
    assert gives_up.attempts == 3
    assert _notify_results(chaos, recovers, 1) == ["sent"]
    assert _notify_results(chaos, gives_up, 1) == ["sent"]
    # The broker delivers the mail task again (at least once): nothing more is sent.
    for _ in range(2):
        chaos.app.send_task(NOTIFY_TASK, args=[str(recovers.job_id)], queue="mail")
    assert sorted(_notify_results(chaos, recovers, 3)) == ["already_sent", "already_sent", "sent"]
    subjects = sorted(subject_of(m) for m in mails_in(mail, to="grace@example.com"))
    assert subjects == ["Your report “gives-up.pdf” failed", "Your report “recovers.pdf” is ready"]
    failure = body_of(next(m for m in mails_in(mail) if "failed" in subject_of(m)))
    assert "Gave up after 3 attempts" in failure
    assert "after 3 attempts)" in failure
