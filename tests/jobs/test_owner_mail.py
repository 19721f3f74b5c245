"""Mail to a job's owner when it completes or finally fails: through Django's file-based
mail backend, on the real database, called the way the worker's task calls it."""

from __future__ import annotations

import threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import SentNotification
from accounts.notifications import MailNotSent, notification_preferences_set
from jobs import transitions
from jobs.links import pdf_download_token_valid
from jobs.models import DeadLetter, JobStatus
from jobs.owner_mail import failure_advice, job_notify_enqueue, job_notify_owner
from runs.models import Run
from tests.factories import PdfJobFactory, ReportTemplateFactory, UserFactory
from tests.mail_files import body_of, mails_in, subject_of
from tests.processes import free_port
from workspaces.services import workspace_personal

BASE = "https://reports.example.com"


@pytest.fixture
def mail_dir(settings, tmp_path: Path) -> Path:
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.PUBLIC_BASE_URL = BASE
    return tmp_path / "mail"


@pytest.fixture
def owner(db):
    return UserFactory(username="ada", email="ada@example.com")


def _completed(owner, **fields):
    template = ReportTemplateFactory(owner=owner, name="Quarterly invoice")
    job = PdfJobFactory(owner=owner, template=template, status=JobStatus.PROCESSING, **fields)
    return transitions.job_complete(
        job_id=job.job_id, pdf_file=f"{job.job_id}.pdf", page_count=3, size_bytes=4096, warnings=[]
    )


def _failed(owner, *, error: str, code: str):
    job = PdfJobFactory(owner=owner, status=JobStatus.PROCESSING, attempts=1)
    return transitions.job_fail(job_id=job.job_id, error=error, code=code)


def test_completed_job_mails_its_owner_an_absolute_signed_download_link(mail_dir, owner):
    job = _completed(owner)
    assert job_notify_owner(job_id=job.job_id) == "sent"
    [mail] = mails_in(mail_dir)
    assert mail["To"] == "ada@example.com"
    assert subject_of(mail) == "Your report “Quarterly invoice” is ready"
    assert mail["Auto-Submitted"] == "auto-generated"
    body = body_of(mail)
    assert "3 pages, 4.0\xa0KB" in body or "3 pages, 4.0 KB" in body
    link = next(line for line in body.splitlines() if "/pdf?token=" in line)
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == BASE
    assert parts.path == f"/api/v1/jobs/{job.job_id}/pdf"
    assert pdf_download_token_valid(parse_qs(parts.query)["token"][0], job.job_id)
    assert f"{BASE}/jobs/{job.job_id}/download" in body  # the link that never expires
    assert f"{BASE}/account/" in body  # where to turn it off


def test_failed_job_mails_the_message_and_what_to_do(mail_dir, owner):
    error = "Template error on line 3: 'total' is undefined"
    job = _failed(owner, error=error, code="template_error")
    assert job_notify_owner(job_id=job.job_id) == "sent"
    [mail] = mails_in(mail_dir)
    assert subject_of(mail) == f"Your report “{job.filename}” failed"
    body = body_of(mail)
    assert error in body
    assert "error code: template_error, after 1 attempt)" in body
    assert failure_advice("template_error") in body
    assert f"{BASE}/jobs/{job.job_id}/" in body


def test_an_api_keys_jobs_mail_only_a_person_who_asked_and_name_the_key(
    mail_dir, owner, sent_tasks
):
    from accounts.services import api_key_create

    key, _ = api_key_create(user=owner, name="billing")
    # By default an integration's jobs mail nobody: not even a message is queued.
    quiet = _completed(owner, api_key=key)
    job_notify_enqueue(job=quiet)
    assert sent_tasks.calls["notify_enqueue"] == []
    assert job_notify_owner(job_id=quiet.job_id) == "not_wanted"
    assert mails_in(mail_dir) == []
    # Asked for on the account page, they mail like a browser job, naming the key.
    notification_preferences_set(
        user=owner, email_job_finished=True, browser_job_finished=True, email_api_jobs=True
    )
    job = _completed(owner, api_key=key)
    job_notify_enqueue(job=job)
    assert sent_tasks.ids("notify_enqueue", "job_id") == [job.job_id]
    assert job_notify_owner(job_id=job.job_id) == "sent"
    assert f"with the API key rk_{key.prefix}_…" in body_of(mails_in(mail_dir)[0])


def test_an_owner_who_turned_job_mail_off_gets_none(mail_dir, owner):
    notification_preferences_set(user=owner, email_job_finished=False, browser_job_finished=True)
    assert job_notify_owner(job_id=_completed(owner).job_id) == "not_wanted"
    assert mails_in(mail_dir) == []


def test_an_owner_without_an_address_gets_none(mail_dir, db):
    assert job_notify_owner(job_id=_completed(UserFactory(email="")).job_id) == "not_wanted"
    assert mails_in(mail_dir) == []


def test_a_second_delivery_of_the_task_sends_nothing(mail_dir, owner):
    job = _completed(owner)
    assert job_notify_owner(job_id=job.job_id) == "sent"
    assert job_notify_owner(job_id=job.job_id) == "already_sent"
    assert len(mails_in(mail_dir)) == 1
    assert SentNotification.objects.get().sent_at is not None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs row locks (PostgreSQL)")
def test_two_deliveries_at_once_send_one_mail(mail_dir, transactional_db, sent_tasks):
    owner = UserFactory(username="grace", email="grace@example.com")
    job = _completed(owner)
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def deliver() -> None:
        start.wait()
        try:
            outcomes.append(job_notify_owner(job_id=job.job_id))
        finally:
            connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["already_sent", "sent"]
    assert len(mails_in(mail_dir)) == 1


def test_a_mail_server_that_refuses_leaves_the_mail_to_the_retry(settings, mail_dir, owner):
    job = _completed(owner)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens
    with pytest.raises(MailNotSent):
        job_notify_owner(job_id=job.job_id)
    assert not SentNotification.objects.exists()  # rolled back: the retry is not "already sent"
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    assert job_notify_owner(job_id=job.job_id) == "sent"
    assert len(mails_in(mail_dir)) == 1


def test_a_job_re_driven_since_it_failed_is_not_mailed_about_that_failure(mail_dir, owner):
    job = _failed(owner, error="Bad data", code="invalid_data")
    transitions.job_requeue_failed(job_id=job.job_id)
    assert job_notify_owner(job_id=job.job_id) == "not_final"
    assert mails_in(mail_dir) == []


def test_a_failure_that_beat_will_re_drive_waits_for_the_last_re_drive(settings, mail_dir, owner):
    settings.DLQ_MAX_RETRIES = 2
    job = _failed(owner, error="Gave up after 3 attempts (ref 1a2b)", code="retries_exhausted")
    # Asked before the worker wrote the dead letter: a first failure, re-drives left.
    assert job_notify_owner(job_id=job.job_id) == "redrive_pending"
    letter = DeadLetter.objects.create(job=job, error_code="retries_exhausted", retry_count=1)
    assert job_notify_owner(job_id=job.job_id) == "redrive_pending"
    DeadLetter.objects.filter(pk=letter.pk).update(retry_count=2)  # no re-drive left
    assert job_notify_owner(job_id=job.job_id) == "sent"
    assert failure_advice("retries_exhausted").replace("{id}", str(job.job_id)) in body_of(
        mails_in(mail_dir)[0]
    )


def test_a_dead_letter_too_old_for_the_next_re_drive_pass_mails_now(settings, mail_dir, owner):
    settings.DLQ_MAX_RETRIES = 3
    job = _failed(owner, error="Gave up", code="retries_exhausted")
    almost_too_old = timezone.now() - timezone.timedelta(
        seconds=settings.DLQ_MAX_AGE_SECONDS - settings.DLQ_REDRIVE_INTERVAL_SECONDS / 2
    )
    letter = DeadLetter.objects.create(job=job, error_code="retries_exhausted", retry_count=1)
    DeadLetter.objects.filter(pk=letter.pk).update(created_at=almost_too_old)
    assert job_notify_owner(job_id=job.job_id) == "sent"


def test_only_completed_and_failed_jobs_are_mailed(mail_dir, owner):
    job = PdfJobFactory(owner=owner, status=JobStatus.QUEUED)
    transitions.job_mark_cancelled(job_id=job.job_id)
    assert job_notify_owner(job_id=job.job_id) == "not_final"
    assert mails_in(mail_dir) == []


def test_a_record_of_a_zip_run_sends_no_mail_of_its_own(owner, sent_tasks):
    run = Run.objects.create(workspace=workspace_personal(user=owner), owner=owner, total=1)
    in_run = PdfJobFactory(owner=owner, status=JobStatus.COMPLETED, batch_id=run.run_id)
    alone = PdfJobFactory(owner=owner, status=JobStatus.COMPLETED)
    job_notify_enqueue(job=in_run)
    job_notify_enqueue(job=alone)
    assert sent_tasks.ids("notify_enqueue") == [alone.job_id]


@pytest.mark.parametrize(
    ("email", "active", "choices", "by_key", "mailed"),
    [
        ("ada@example.com", True, None, False, True),  # never chose: the defaults
        ("ada@example.com", True, None, True, False),  # an API key's job, not asked for
        ("ada@example.com", True, (False, True), False, False),  # job mail off
        ("ada@example.com", True, (True, True), True, True),  # asked for API key jobs too
        ("ada@example.com", True, (True, False), True, False),
        ("", True, None, False, False),  # no address
        ("ada@example.com", False, None, False, False),  # not active
    ],
)
def test_the_final_transitions_own_read_of_the_mail_choices_answers_as_the_query_does(
    email, active, choices, by_key, mailed, db
):
    # On PostgreSQL the completion reads the owner's choices in its own statement, so the
    # check after it sends no query: it must answer exactly as job_mail_recipient does.
    from accounts.notifications import job_mail_recipient, job_mail_recipient_of
    from accounts.services import api_key_create
    from jobs.owner_mail import MAIL_CHOICES

    person = UserFactory(email=email, is_active=active)
    if choices is not None:
        notification_preferences_set(
            user=person,
            email_job_finished=choices[0],
            browser_job_finished=True,
            email_api_jobs=choices[1],
        )
    key = api_key_create(user=person, name="k")[0] if by_key else None
    job = _completed(person, api_key=key)
    expected = job_mail_recipient(user_id=person.pk, by_api_key=by_key)
    assert expected == (email if mailed else None)
    if connection.vendor == "postgresql":
        assert job_mail_recipient_of(getattr(job, MAIL_CHOICES.name), by_api_key=by_key) == (
            expected
        )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's joined statement")
def test_the_mail_check_after_a_completion_sends_no_query(owner, sent_tasks):
    from django.test.utils import CaptureQueriesContext

    job = _completed(owner)
    with CaptureQueriesContext(connection) as queries:
        job_notify_enqueue(job=job)
    assert len(queries) == 0
    assert sent_tasks.ids("notify_enqueue", "job_id") == [job.job_id]
    failed = _failed(owner, error="boom", code="render_error")
    with CaptureQueriesContext(connection) as queries:
        job_notify_enqueue(job=failed)
    assert len(queries) == 0
