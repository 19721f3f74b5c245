"""A job's post-render steps on the jobs side: who may send which steps with a submit, merge
sources checked to be the tenant's own completed jobs at submit, read from storage and run
in the worker; a sign step's timestamp authority resolved and checked before the worker
connects to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.files.storage import storages

from accounts.sealing import steps_unseal
from accounts.signing_certificates import (
    signing_certificate_get,
    signing_certificate_unseal,
    signing_certificates_check,
)
from accounts.timestamping import timestamp_urls_check
from jobs.error_codes import JobErrorCode
from jobs.models import JobStatus, PdfJob
from jobs.selectors import job_get
from jobs.webhook_transport import WebhookRefused, resolve_checked
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, RenderError
from rendering.postprocess.document_options import DocumentOptions
from rendering.postprocess.steps import (
    merge_job_ids,
    parse_steps,
    sign_certificate_ids,
    timestamp_urls,
)
from rendering.renderers.base import RenderedPdf
from reports.limits import limits_from_settings
from workspaces.permissions import Action, PermissionDenied, can, role_in, roles_allowed

if TYPE_CHECKING:
    from rendering.postprocess.timestamps import CheckedTimeStamper

# Steps that attest or protect a template's PDF: a submit never drops or replaces them.
TEMPLATE_LOCKED_STEPS = ("sign", "encrypt", "stamp")


def _merge_source(*, workspace: Any, job_id: str) -> PdfJob:
    job = job_get(workspace=workspace, job_id=job_id)  # another workspace's: 404, as if missing
    if job.status != JobStatus.COMPLETED or not job.pdf_file or job.expired_at is not None:
        raise ApplicationError(
            f"merge: job {job_id} has no PDF to merge (it is {job.status}"
            f"{', its PDF expired' if job.expired_at else ''}).",
            code=JobErrorCode.MERGE_SOURCE_UNAVAILABLE,
        )
    return job


def submitted_steps_allow(
    *, actor: Any, workspace: Any, submitted: Any, template_steps: list[dict[str, Any]] | None
) -> None:
    """May `actor` send these steps with a submit? Steps a submit sends replace the
    template's, so a template with sign, encrypt or stamp steps takes none (400); a sign
    step of the submit's own needs certificate.use (403), or anyone who may submit could
    sign any HTML with the workspace's certificate."""
    if submitted is None:
        return
    locked = [s["type"] for s in template_steps or [] if s.get("type") in TEMPLATE_LOCKED_STEPS]
    if locked:
        raise ApplicationError(
            f"steps: this template's published steps include {', '.join(locked)}, which a "
            "submit cannot drop or replace; submit without steps to use the template's.",
            code=ErrorCode.INVALID_DATA,
        )
    kinds = (
        [step.get("type") for step in submitted if isinstance(step, dict)]
        if isinstance(submitted, list)
        else []
    )
    if "sign" in kinds and not can(actor, Action.CERTIFICATE_USE, workspace):
        role = role_in(actor, workspace.pk)
        needed = ", ".join(may.value for may in roles_allowed(Action.CERTIFICATE_USE))
        raise PermissionDenied(
            f"Your role here is {role.value if role else 'none'}; a sign step sent with a "
            f"submit needs {Action.CERTIFICATE_USE.value} ({needed}). Sign through a "
            "published template whose steps sign.",
            action=Action.CERTIFICATE_USE,
        )


def steps_submit_check(
    *, workspace: Any, raw: Any, document: DocumentOptions | None
) -> list[dict[str, Any]]:
    """The normalised steps, every merge source one of the workspace's completed jobs and
    every signing certificate the workspace's own."""
    steps = parse_steps(raw, document)
    for job_id in merge_job_ids(steps):
        _merge_source(workspace=workspace, job_id=job_id)
    signing_certificates_check(workspace=workspace, steps=steps)
    timestamp_urls_check(steps=steps)
    return steps


def _timestampers(steps: list[dict[str, Any]]) -> dict[str, CheckedTimeStamper]:
    """A timestamper per timestamp_url, pinned to the address its host resolves to now,
    once every address it resolves to passed the outbound rules (a refused one is
    permanent, as for webhooks: a retry would meet the same address)."""
    # Imported when a job signs with a timestamp: pyHanko costs every process start ~0.4 s.
    from rendering.postprocess.timestamps import CheckedTimeStamper, timestamp_failed

    allow = settings.PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS
    found = {}
    for _, url in timestamp_urls(steps):
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        try:
            address = resolve_checked(parts.hostname or "", port, allow_private=allow)
        except WebhookRefused as exc:
            reason = str(exc).replace("callback host", "host")
            raise timestamp_failed(url, reason) from None
        found[url] = CheckedTimeStamper(url, address=address)
    return found


def _certificates(job: PdfJob) -> dict[str, tuple[bytes, str]]:
    unsealed = {}
    for certificate_id in sign_certificate_ids(job.steps):
        try:
            certificate = signing_certificate_get(
                workspace=job.workspace, certificate_id=certificate_id
            )
        except ApplicationError as exc:  # deleted or expired since the submit
            raise RenderError(exc.message, code=exc.code) from None
        unsealed[certificate_id] = signing_certificate_unseal(certificate)
    return unsealed


def _sources(job: PdfJob) -> dict[str, bytes]:
    sources = {}
    for job_id in merge_job_ids(job.steps):
        try:
            source = _merge_source(workspace=job.workspace, job_id=job_id)
        except ApplicationError as exc:  # deleted or expired since the submit
            raise RenderError(exc.message, code=exc.code) from None
        with storages["reports"].open(source.pdf_file) as handle:
            sources[job_id] = handle.read()
    return sources


def job_steps_apply(
    *,
    job: PdfJob,
    rendered: RenderedPdf,
    document: DocumentOptions | None,
    on_stage: Callable[[str, int], None],
) -> RenderedPdf:
    """The rendered PDF after the job's steps (each shown as a stage `step_<type>`), its
    compliance extended with a check per step; a profile's checks run again on the
    result, so a step that breaks the profile fails the job."""
    # The worker's side, imported here: the steps' PDF libraries (pikepdf, pypdf,
    # ReportLab, Pillow, pyHanko) are not needed by the web or beat that import this module
    # for the submit checks. A worker imports them before its pool forks (rendering.preload).
    from rendering.postprocess.checks import checks_as_json, checks_run
    from rendering.postprocess.finish import ComplianceFailed
    from rendering.postprocess.pdf_steps import steps_apply

    if not job.steps:
        return rendered
    steps = steps_unseal(job.steps)
    count = len(steps)
    done = iter(range(count))

    def on_step(kind: str) -> None:
        on_stage(f"step_{kind}", 88 + 2 * next(done) // max(1, count))

    result = steps_apply(
        rendered.content,
        steps,
        sources=_sources(job),
        max_pages=limits_from_settings().max_pages,
        certificates=_certificates(job),
        timestampers=_timestampers(steps),
        on_step=on_step,
    )
    compliance = dict(rendered.compliance or {"profile": None, "checks": [], "signature": None})
    checks = compliance["checks"]
    if document is not None and document.profile:  # encryption with a profile is refused
        owner_password = next(
            (s["owner_password"] for s in steps if s["type"] == "encrypt"), ""
        )  # encrypted for a profile that allows it (PDF/UA): read back as its owner would
        checks = checks_as_json(checks_run(result.content, document, password=owner_password))
        if document.e_invoice is not None:  # its own checks ran before the steps
            checks += [c for c in compliance["checks"] if c["name"].startswith("e_invoice")]
    compliance["checks"] = checks + checks_as_json(result.checks)
    compliance["signature"] = result.signature
    failed = [c for c in compliance["checks"] if not c["passed"]]
    if failed:
        reasons = "; ".join(f"{c['name']}: {c['detail']}" for c in failed)
        raise ComplianceFailed(f"After its steps the PDF fails: {reasons}.")
    return RenderedPdf(
        content=result.content,
        page_count=result.page_count,
        warnings=rendered.warnings,
        compliance=compliance,
    )
