"""Starting a run (one stored template, many records, each an ordinary job) and sending its
failed records again."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiKey
from accounts.sealing import steps_seal, steps_unseal
from core.api_fields import storable_text
from core.errors import Conflict
from jobs import dispatch, services, transitions
from jobs.metrics import JOBS_CACHED, JOBS_SUBMITTED, job_renderer
from jobs.models import JobStatus, PdfJob
from jobs.quotas import job_slot_reserve, workspace_quota_reserve
from jobs.result_cache import cached_job_fields, result_cache_key
from jobs.retry_rule import job_retry_helps
from jobs.steps import steps_submit_check
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from rendering.options import parse_options
from rendering.postprocess.submit import document_submit_check
from reports.limits import limits_from_settings
from reports.partials import partials_recorded, template_partials_resolve
from reports.validation import template_data_check
from runs.error_codes import RunErrorCode
from runs.models import Run, RunOutput, RunRecord
from runs.names import UniqueNames, pattern_check
from runs.progress import run_recount, run_recount_on_commit
from runs.records import Record
from workspaces.models import Workspace

logger = logging.getLogger(__name__)


class RunRecordsInvalid(ApplicationError):
    """422: not one record of the run can render; `records` names each one's problem."""

    http_status = 422
    code = RunErrorCode.RUN_RECORDS_INVALID

    def __init__(self, message: str, *, records: list[dict[str, Any]]) -> None:
        super().__init__(message, details={"records": records[:100]})


@dataclass
class _Checked:
    index: int
    data: Any
    error: str = ""
    options: dict[str, Any] | None = None
    cache_key: str = ""


def _check_records(
    records: list[Record], *, schema: dict[str, Any], pattern: str, options: dict[str, Any]
) -> list[_Checked]:
    """Each record's data within the limits and the template's schema, or its error
    naming the row and the field; each valid one's options with its download name."""
    limits = limits_from_settings()
    names = UniqueNames(pattern)
    checked = []
    for index, record in enumerate(records):
        if record.error:
            checked.append(_Checked(index, None, f"{record.where}: {record.error}"))
            continue
        try:
            data = template_data_check(
                schema=schema, data=record.data, limits=limits, name=record.where
            )
        except ApplicationError as exc:
            checked.append(_Checked(index, record.data, _prefixed(record.where, exc.message)))
            continue
        filename = names.next(index=index, data=data)
        checked.append(_Checked(index, data, options=options | {"filename": filename}))
    return checked


def _prefixed(where: str, message: str) -> str:
    return message if message.startswith(where) else f"{where}: {message}"


def _cache_hits(*, owner: Any, keys: list[str]) -> dict[str, PdfJob]:
    """The newest completed, unexpired job per key, locked like result_cache_source (one
    query for the whole run instead of one per record)."""
    hits: dict[str, PdfJob] = {}
    rows = (
        PdfJob.objects.select_for_update(of=("self",))
        .filter(
            owner=owner, cache_key__in=keys, status=JobStatus.COMPLETED, expired_at__isnull=True
        )
        .exclude(pdf_file="")
        .order_by("cache_key", "-completed_at")
    )
    for job in rows:
        hits.setdefault(job.cache_key, job)
    return hits


def run_create(
    *,
    owner: Any,
    workspace: Workspace,
    template_slug: str,
    records: list[Record],
    output: str = RunOutput.ZIP,
    filename_pattern: str = "",
    api_key: ApiKey | None = None,
) -> Run:
    """Check every record against the template and queue one job per valid record, all
    in one transaction (quotas counted for the whole run, rows inserted in bulk, one
    publish loop after the commit). A bad record is that record's error; if none is
    valid, nothing is made (RunRecordsInvalid)."""
    limit = settings.RUN_MAX_RECORDS
    if not records:
        raise ApplicationError("A run needs at least one record.", code=ErrorCode.INVALID_DATA)
    if len(records) > limit:
        raise ApplicationError(
            f"A run takes at most {limit} records (RUN_MAX_RECORDS); this one has more. "
            "Split it into several runs.",
            code=RunErrorCode.TOO_MANY_ITEMS,
        )
    if output not in RunOutput.values:
        raise ApplicationError(
            f"Unknown output {output!r}; use one of: {', '.join(RunOutput.values)}.",
            code=ErrorCode.INVALID_DATA,
        )
    if len(filename_pattern) > 300:
        raise ApplicationError("filename_pattern is longer than 300 characters.")
    template, version = services.stored_source(workspace=workspace, template_slug=template_slug)
    # What every record shares, checked once: the template's options, steps and renderer.
    parsed = parse_options(version.options or None)
    document_submit_check(parsed.pdf, version.renderer)
    raw_steps = steps_unseal(version.steps) if version.steps else None
    job_steps = steps_submit_check(workspace=workspace, raw=raw_steps, document=parsed.pdf)
    checked = _check_records(
        records, schema=version.schema, pattern=filename_pattern, options=parsed.as_dict()
    )
    valid = [item for item in checked if not item.error]
    pattern_check(filename_pattern, [item.data for item in valid])
    if not valid:
        raise RunRecordsInvalid(
            f"None of the {len(checked)} records can be rendered; the first: {checked[0].error}",
            records=[{"index": item.index, "error": item.error} for item in checked],
        )
    # The templates it includes, once for every record: each job renders these versions.
    partials = partials_recorded(
        template_partials_resolve(
            workspace=workspace, engine=version.engine, html=version.html, slug=template.slug
        )
    )
    for item in valid:
        item.cache_key = result_cache_key(
            owner_id=owner.pk,
            version_id=version.pk,
            html=version.html,
            engine=version.engine,
            helpers="",
            renderer=version.renderer,
            partials=partials,
            data=item.data,
            options=(item.options or {}) | ({"steps": job_steps} if job_steps else {}),
        )
    sealed_steps = steps_seal(job_steps)
    with transaction.atomic():
        workspace_quota_reserve(workspace=workspace, count=len(valid))
        job_slot_reserve(owner=owner, count=len(valid))
        hits = (
            _cache_hits(owner=owner, keys=[item.cache_key for item in valid])
            if template.cache_results
            else {}
        )
        run = Run.objects.create(
            workspace=workspace,
            owner=owner,
            template=template,
            output=output,
            filename_pattern=filename_pattern,
            total=len(checked),
            # Counted now, so the 202 says it; the recount after the commit agrees.
            failed=len(checked) - len(valid),
            completed=len(hits),
        )
        now = timezone.now()
        jobs = {}
        for item in valid:
            hit = hits.get(item.cache_key)
            jobs[item.index] = PdfJob(
                owner=owner,
                workspace=workspace,
                template=template,
                template_version=version,
                engine=version.engine,
                renderer=version.renderer,
                data=item.data,
                options=item.options,
                steps=sealed_steps,
                api_key=api_key,
                batch_id=run.run_id,
                partial_versions=partials,
                cache_key=item.cache_key,
                enqueued_at=now if hit is None else None,
                **(cached_job_fields(hit) if hit is not None else {}),
            )
        PdfJob.objects.bulk_create(jobs.values())
        RunRecord.objects.bulk_create(
            RunRecord(
                run=run,
                index=item.index,
                # A valid record's data is its job's; a refused one's is kept to show.
                data=item.data if item.error and isinstance(item.data, dict | list) else {},
                job=jobs.get(item.index),
                error=item.error,
            )
            for item in checked
        )
        to_render = [job.job_id for job in jobs.values() if job.status == JobStatus.QUEUED]
        renderer = job_renderer(next(iter(jobs.values())))
        transaction.on_commit(lambda: JOBS_SUBMITTED.labels(renderer=renderer).inc(len(jobs)))
        transaction.on_commit(lambda: JOBS_CACHED.labels(renderer=renderer).inc(len(hits)))
        # One loop of publishes once the rows are committed; a refused publish leaves the
        # job queued for the reconciler, as for a single submit.
        transaction.on_commit(lambda: _enqueue_all(to_render))
        run_recount_on_commit(run_id=run.run_id)  # refused records and cache hits count now
    logger.info(
        "run %s accepted: %d records, %d refused, %d from the result cache",
        run.run_id,
        len(checked),
        len(checked) - len(valid),
        len(hits),
    )
    run.refresh_from_db()
    return run


def run_for_batch_create(*, owner: Any, workspace: Workspace, total: int) -> Run:
    """The run a generate-pdf-batch submit is (its items may name different templates, so
    it has none): batch_id is its run_id, and GET runs/{batch_id} follows the batch."""
    return Run.objects.create(
        workspace=workspace, owner=owner, output=RunOutput.SEPARATE, total=total
    )


def run_for_batch_record(*, run: Run, answers: list[dict[str, Any]]) -> None:
    """One record per batch item: its job, or why the item was refused."""
    ids = [answer["job_id"] for answer in answers if answer.get("job_id")]
    jobs = {str(job.job_id): job for job in PdfJob.objects.filter(job_id__in=ids)}
    RunRecord.objects.bulk_create(
        RunRecord(
            run=run,
            index=answer["index"],
            job=jobs.get(str(answer["job_id"])) if answer.get("job_id") else None,
            # An item's error may echo what the caller sent (NUL, lone surrogates).
            error=storable_text(answer.get("error") or ""),
        )
        for answer in answers
    )
    run_recount(run_id=run.run_id)


def _enqueue_all(job_ids: list[Any]) -> None:
    for job_id in job_ids:
        dispatch.job_enqueue(job_id=job_id, note_time=False)


def run_retry_failed(*, run: Run) -> Run:
    """Send the run's failed records (those a retry can fix) to the workers again; a
    Conflict (409) when there is none. Counted against the tenant's in-flight quota."""
    failed = list(
        PdfJob.objects.filter(batch_id=run.run_id, status=JobStatus.FAILED).order_by("pk")
    )
    retryable = [job for job in failed if job_retry_helps(job)]
    if not retryable:
        fixable = (
            f" ({len(failed)} failed for their data or template: fix those and start a new run)"
        )
        raise Conflict(
            f"Run {run.run_id} has no failed record a retry can fix{fixable if failed else ''}."
        )
    with transaction.atomic():
        job_slot_reserve(owner=run.owner, count=len(retryable))
        requeued = [transitions.job_requeue_failed(job_id=job.job_id) for job in retryable]
        sent = [job.job_id for job in requeued if job is not None]
        transaction.on_commit(lambda: _enqueue_all(sent))
        # Counted before the commit sends the records: the 202 says what was accepted (a
        # running run), not how far a fast worker got with them since (it said "completed"
        # once in CI). The workers' own recounts follow as the records end.
        recounted = run_recount(run_id=run.run_id)
    return recounted or run
