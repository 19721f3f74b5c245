"""Steps through the API and the worker: merge sources are the tenant's own completed
jobs, the steps run in the job as stages, their checks land in compliance; a sign step of a
submit's own needs certificate.use, and a submit keeps a template's sign step."""

from __future__ import annotations

import io
from unittest import mock

import pikepdf
import pytest
from django.core.files.storage import storages
from pyhanko.pdf_utils.reader import PdfFileReader
from rest_framework.test import APIClient

from accounts.models import ApiKey
from accounts.services import api_key_create
from accounts.signing_certificates import signing_certificate_create
from jobs.models import JobStatus, PdfJob
from jobs.steps import job_steps_apply
from jobs.worker import execution
from rendering.renderers.base import RenderedPdf
from reports.models import ReportTemplate
from reports.services import template_create
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.conftest import pdf_text
from tests.factories import UserFactory
from workspaces.permissions import PermissionDenied
from workspaces.services import workspace_create

pytestmark = pytest.mark.django_db
SUBMIT = "/api/v1/generate-pdf-async"


@pytest.fixture(autouse=True)
def _heartbeat_after_the_render(settings):
    # The heartbeat thread's own connection cannot see this test's uncommitted job row and
    # would call the attempt lost if a render on a loaded machine ran past its first beat.
    settings.PDF_HEARTBEAT_SECONDS = 600


def _submit(api, text: str, **extra):
    with mock.patch("jobs.dispatch.job_enqueue"):
        return api.post(SUBMIT, {"html_template": f"<p>{text}</p>", **extra}, format="json")


def _completed(api, text: str) -> str:
    job_id = _submit(api, text).json()["job_id"]
    assert execution.job_execute(job_id=job_id).status == JobStatus.COMPLETED
    return job_id


def test_merging_another_tenants_job_is_a_404_and_nothing_is_queued(api):
    stranger = UserFactory(username="stranger")
    theirs = PdfJob.objects.create(
        owner=stranger,
        html_template="<p>x</p>",
        engine="handlebars",
        status=JobStatus.COMPLETED,
        pdf_file="x.pdf",
    )
    response = _submit(api, "mine", steps=[{"type": "merge", "append": [str(theirs.job_id)]}])
    assert response.status_code == 404
    assert f"No job {theirs.job_id} was found." in response.json()["error"]
    assert PdfJob.objects.count() == 1


def test_merging_a_job_that_has_no_pdf_is_a_400(api):
    queued = _submit(api, "pending").json()["job_id"]
    response = _submit(api, "mine", steps=[{"type": "merge", "prepend": [queued]}])
    assert response.status_code == 400
    assert response.json()["code"] == "merge_source_unavailable"
    assert "has no PDF to merge (it is queued)" in response.json()["error"]


def test_bad_steps_are_a_400_naming_the_step(api):
    response = _submit(api, "x", steps=[{"type": "stamp", "text": ""}])
    assert response.status_code == 400
    assert "steps[0]: stamp.text must be 1 to 40 characters." in response.json()["error"]


def test_bad_steps_and_options_pdf_are_invalid_data_not_render_error(api):
    response = _submit(api, "x", steps=[{"type": "stamp", "text": ""}])
    assert response.json()["code"] == "invalid_data"
    response = _submit(api, "x", options={"pdf": {"metadata": {"title": 5}}})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_data"


ENCRYPT = {"type": "encrypt", "owner_password": "abcdef"}
SIGN = {"type": "sign", "certificate": "0c6f1a47-6e7c-4c55-9f5b-8a2f1f6b4f0e"}


@pytest.mark.parametrize(
    "steps", [[SIGN, ENCRYPT], [ENCRYPT, SIGN]], ids=["sign-encrypt", "encrypt-sign"]
)
def test_sign_and_encrypt_in_either_order_is_one_error_saying_why(api, steps):
    response = _submit(api, "x", steps=steps)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_data"
    assert body["error"].startswith("steps: sign and encrypt cannot be combined, in either order")
    assert "breaks it" in body["error"]
    assert "last step" not in body["error"]
    assert not PdfJob.objects.exists()


def test_a_job_merges_stamps_and_encrypts_and_reports_each_step(api):
    cover = _completed(api, "COVER")
    response = _submit(
        api,
        "BODY",
        steps=[
            {"type": "merge", "prepend": [cover]},
            {"type": "stamp", "text": "CONFIDENTIAL"},
            {"type": "encrypt", "user_password": "reader-pw", "owner_password": "owner-pw-1"},
        ],
    )
    assert response.status_code == 202, response.json()
    job_id = response.json()["job_id"]
    done = execution.job_execute(job_id=job_id)
    assert done.status == JobStatus.COMPLETED
    assert done.page_count == 2
    content = storages["reports"].open(done.pdf_file).read()
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(content))
    with pikepdf.open(io.BytesIO(content), password="reader-pw") as pdf:
        decrypted = io.BytesIO()
        pdf.save(decrypted)
    text = pdf_text(decrypted.getvalue())[1]
    assert text.index("COVER") < text.index("BODY")
    assert text.count("CONFIDENTIAL") == 2
    status = api.get(f"/api/v1/jobs/{job_id}").json()
    assert [c["name"] for c in status["compliance"]["checks"]] == ["merge", "stamp", "encrypt"]
    assert all(c["passed"] for c in status["compliance"]["checks"])
    assert "reader-pw" not in str(status)


def test_each_step_is_a_stage_of_the_job(user):
    job = PdfJob(
        owner=user, steps=[{"type": "stamp", "text": "A"}, {"type": "optimize", "image_dpi": 100}]
    )
    blank = pikepdf.new()
    blank.add_blank_page()
    out = io.BytesIO()
    blank.save(out)
    stages: list[tuple[str, int]] = []
    done = job_steps_apply(
        job=job,
        rendered=RenderedPdf(content=out.getvalue(), page_count=1),
        document=None,
        on_stage=lambda stage, progress: stages.append((stage, progress)),
    )
    assert [stage for stage, _ in stages] == ["step_stamp", "step_optimize"]
    assert done.compliance["profile"] is None
    assert [c["name"] for c in done.compliance["checks"]] == ["stamp", "optimize"]


def test_a_step_that_breaks_the_profile_fails_the_job(api):
    response = _submit(
        api,
        "x",
        renderer="weasyprint",
        options={"pdf": {"profile": "pdf/a-3b"}},
        steps=[{"type": "stamp", "text": "DRAFT"}],
    )
    failed = execution.job_execute(job_id=response.json()["job_id"])
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "compliance_failed"
    assert "After its steps the PDF fails: fonts_embedded: not embedded:" in failed.error


@pytest.fixture
def signing_team(user):
    """A workspace with a certificate and a published template whose steps sign with it;
    an editor's key and a requester's key in it."""
    workspace = workspace_create(name="Signers", owner=user)
    certificate = signing_certificate_create(
        owner=user, workspace=workspace, name="S", pkcs12=make_pkcs12(), password="p12-pass"
    )
    keys = {}
    for role in ("editor", "requester"):
        keys[role] = APIClient()
        keys[role].credentials(
            HTTP_X_API_KEY=api_key_create(user=user, workspace=workspace, role=role)[1]
        )
    sign = [{"type": "sign", "certificate": str(certificate.public_id)}]
    created = keys["editor"].post(
        "/api/v1/templates",
        {"slug": "signed", "name": "Signed", "html": "<p>Signed {{n}}</p>", "steps": sign},
        format="json",
    )
    assert created.status_code == 201, created.json()
    return {"workspace": workspace, "sign": sign, **keys}


def test_a_requesters_own_sign_step_is_refused(signing_team):
    response = _submit(signing_team["requester"], "forged", steps=signing_team["sign"])
    assert response.status_code == 403, response.json()
    assert "certificate.use" in response.json()["error"]
    assert not PdfJob.objects.filter(workspace=signing_team["workspace"]).exists()


@pytest.mark.parametrize(
    "steps",
    [[], [{"type": "optimize"}], [{"type": "stamp", "text": "COPY"}]],
    ids=["dropped", "replaced", "restamped"],
)
def test_a_submit_cannot_drop_or_replace_a_templates_sign_step(signing_team, steps):
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = signing_team["requester"].post(
            SUBMIT, {"template": "signed", "data": {"n": 1}, "steps": steps}, format="json"
        )
    assert response.status_code == 400, response.json()
    assert "cannot drop or replace" in response.json()["error"]
    assert not PdfJob.objects.filter(workspace=signing_team["workspace"]).exists()


def test_a_published_templates_sign_step_signs_for_a_requester_and_an_editor(signing_team):
    for role in ("requester", "editor"):
        with mock.patch("jobs.dispatch.job_enqueue"):
            response = signing_team[role].post(
                SUBMIT, {"template": "signed", "data": {"n": 1}}, format="json"
            )
        assert response.status_code == 202, response.json()
        done = execution.job_execute(job_id=response.json()["job_id"])
        assert done.status == JobStatus.COMPLETED, done.error
        reader = PdfFileReader(io.BytesIO(storages["reports"].open(done.pdf_file).read()))
        assert len(reader.embedded_signatures) == 1


def test_a_template_save_that_adds_a_sign_step_needs_certificate_use(signing_team):
    template = ReportTemplate.objects.get(slug="signed")
    requester_key = ApiKey.objects.get(workspace=signing_team["workspace"], role="requester")
    with pytest.raises(PermissionDenied, match=r"certificate\.use"):
        template_create(
            owner=template.owner,
            workspace=signing_team["workspace"],
            name="Other",
            slug="other",
            html="<p>x</p>",
            steps=signing_team["sign"],
            by=requester_key,
        )


@pytest.mark.parametrize("flatten", [False, True], ids=["fillable", "flattened"])
def test_a_filled_pdf_form_is_signed_by_its_templates_sign_step(signing_team, flatten):
    from rendering.forms import form_source
    from tests.rendering.form_pdfs import membership_form

    created = signing_team["editor"].post(
        "/api/v1/templates",
        {
            "slug": "signed-form",
            "name": "Signed form",
            "engine": "pdf-form",
            "html": form_source(membership_form()),
            "steps": signing_team["sign"],
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = signing_team["requester"].post(
            SUBMIT,
            {
                "template": "signed-form",
                "data": {"full_name": "Ada Lovelace", "plan": "pro"},
                "options": {"flatten": flatten},
            },
            format="json",
        )
    assert response.status_code == 202, response.json()
    done = execution.job_execute(job_id=response.json()["job_id"])
    assert done.status == JobStatus.COMPLETED, done.error
    content = storages["reports"].open(done.pdf_file).read()
    reader = PdfFileReader(io.BytesIO(content))
    assert len(reader.embedded_signatures) == 1
    if flatten:  # the value is page content, under the signature
        assert "Ada Lovelace" in pdf_text(content)[1]
    else:  # the value is the field's, kept by the signature's incremental update
        with pikepdf.open(io.BytesIO(content)) as document:
            fields = document.Root.AcroForm.Fields
            values = {str(field.get("/T")): str(field.get("/V", "")) for field in fields}
        assert values["full_name"] == "Ada Lovelace"
