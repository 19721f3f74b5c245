"""Schedules kept: create, edit, pause and resume, delete, run now; and the due ticks
claimed, each exactly once."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from accounts.models import ApiKey
from core.errors import NotFound
from rendering.errors import ApplicationError
from reports import selectors as template_selectors
from reports.error_codes import TemplateErrorCode
from reports.limits import limits_from_settings
from reports.models import ReportTemplate
from reports.services import template_current_version
from reports.validation import data_check_sized, data_validate
from schedules import dispatch
from schedules.access import schedule_access_lost
from schedules.cron import ScheduleInvalid, cron_check, next_tick, zone_parse
from schedules.delivery import delivery_target
from schedules.error_codes import ScheduleErrorCode
from schedules.mail_limits import mail_quota_check, mail_recipients_of
from schedules.models import RunTrigger, Schedule, ScheduleRun
from schedules.validation import data_url_check, deliveries_check
from workspaces.audit import AuditAction, audit_changes, audit_record
from workspaces.models import Workspace
from workspaces.permissions import Action, authorize

EDITABLE = ("name", "template", "data", "data_url", "cron", "timezone", "deliveries", "paused")


def _template(*, workspace: Workspace, slug: Any) -> ReportTemplate:
    if not isinstance(slug, str) or not slug:
        raise ScheduleInvalid("template", "give the slug of one of the workspace's templates.")
    try:
        template = template_selectors.template_get_visible(workspace=workspace, slug=slug)
    except NotFound:
        raise ApplicationError(
            f"template: no template with slug {slug!r} exists.",
            code=TemplateErrorCode.UNKNOWN_TEMPLATE,
        ) from None
    if template.is_archived:
        raise ApplicationError(
            f"template: {slug!r} is archived; restore it to use it.",
            code=TemplateErrorCode.TEMPLATE_ARCHIVED,
        )
    return template


def _data(template: ReportTemplate, data: Any, data_url: str) -> tuple[dict[str, Any], str]:
    """(data, data_url): one of them. Stored data is checked against the template's schema
    now; fetched data when each run fetches it."""
    if data_url and data not in (None, {}):
        raise ScheduleInvalid("data", "give data or data_url, not both.")
    if data_url:
        return {}, data_url_check(data_url)
    limits = limits_from_settings()
    checked, size = data_check_sized({} if data is None else data, limits=limits)
    schema = template_current_version(template=template).schema
    data_validate(schema=schema, data=checked, data_bytes=size)
    return checked, ""


def _next(schedule: Schedule, *, now: datetime) -> datetime | None:
    return None if schedule.paused else next_tick(schedule.cron, schedule.timezone, after=now)


def _s3_destinations(deliveries: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(d["bucket"], d["prefix"]) for d in deliveries if d.get("type") == "s3"}


def _problem(exc: ApplicationError) -> tuple[str, str]:
    """(field, message) of a check's error; a message without a field names `data`."""
    field = str(getattr(exc, "details", {}).get("field") or "")
    if field and exc.message.startswith(f"{field}: "):
        return field, exc.message[len(field) + 2 :]
    head, sep, rest = exc.message.partition(": ")
    return (head, rest) if sep and head in EDITABLE else ("data", exc.message)


def _apply(schedule: Schedule, fields: dict[str, Any], *, signed: bool, by: Any = None) -> None:
    """Check `fields` and set them on the schedule (not saved). `by` (a person or key;
    None: an operator in the admin) must have schedule.s3 to add an S3 destination. Every
    field is checked: one error names each wrong one (one alone keeps its own code)."""
    errors: list[ApplicationError] = []

    def check(step: Any) -> None:
        try:
            step()
        except ApplicationError as exc:
            errors.append(exc)

    if unknown := sorted(set(fields) - set(EDITABLE)):
        errors.extend(ScheduleInvalid(name, "is not a field of a schedule.") for name in unknown)
    template_ok = schedule.template_id is not None
    if "template" in fields:

        def template() -> None:
            nonlocal template_ok
            template_ok = False
            schedule.template = _template(workspace=schedule.workspace, slug=fields["template"])
            template_ok = True

        check(template)
    if "cron" in fields:
        check(lambda: setattr(schedule, "cron", cron_check(fields["cron"])))
    if "timezone" in fields:

        def zone() -> None:
            zone_parse(fields["timezone"])
            schedule.timezone = fields["timezone"]

        check(zone)
    if "deliveries" in fields:

        def deliveries() -> None:
            checked = deliveries_check(
                fields["deliveries"], signed=signed, workspace=schedule.workspace
            )
            added = _s3_destinations(checked) - _s3_destinations(schedule.deliveries or [])
            if added and by is not None:
                authorize(by, Action.SCHEDULE_S3_SET, schedule.workspace)
            schedule.deliveries = checked

        check(deliveries)
    if "name" in fields:

        def name() -> None:
            text = str(fields["name"] or "")
            if any(ch < " " or ch == "\x7f" for ch in text):
                # It becomes a mail subject: a header cannot hold a line break.
                raise ScheduleInvalid("name", "must be one line, without control characters.")
            schedule.name = text[:200]

        check(name)
    if "paused" in fields:

        def paused() -> None:
            if not isinstance(fields["paused"], bool):
                raise ScheduleInvalid("paused", "must be true or false.")
            schedule.paused = fields["paused"]
            schedule.paused_reason = ""

        check(paused)
    if {"data", "data_url", "template"} & set(fields) and template_ok:

        def data() -> None:
            given = fields.get("data", None if "data_url" in fields else schedule.data)
            url = fields.get("data_url", "" if "data" in fields else schedule.data_url) or ""
            if not isinstance(url, str):
                raise ScheduleInvalid("data_url", "must be a URL.")
            schedule.data, schedule.data_url = _data(schedule.template, given, url)

        check(data)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        # A 403 (schedule.s3) is not a field to fix: it answers alone.
        for error in errors:
            if error.http_status != 400:
                raise error
        raise ScheduleInvalid.every([_problem(error) for error in errors])


def _audit(schedule: Schedule, by: Any, action: AuditAction, **changes: Any) -> None:
    """One entry per change of a schedule: what runs, when, and where its PDFs go (every
    delivery leaves the service: addresses, URLs, buckets)."""
    audit_record(
        workspace=schedule.workspace_id,
        actor=by,
        action=action,
        target_type="schedule",
        target_id=str(schedule.schedule_id),
        target_repr=str(schedule),
        changes=changes,
    )


def _deliveries(schedule: Schedule) -> list[str]:
    return [f"{d['type']}: {delivery_target(d)}" for d in schedule.deliveries or []]


def _schedule_slot_check(*, workspace: Workspace) -> None:
    """400 too_many_schedules once the workspace keeps SCHEDULE_MAX_PER_WORKSPACE. The
    workspace row is locked: two creates at once cannot both take the last slot."""
    Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
    cap = settings.SCHEDULE_MAX_PER_WORKSPACE
    if Schedule.objects.filter(workspace=workspace).count() >= cap:
        raise ApplicationError(
            f"{workspace.name} has {cap} schedules, the most a workspace may keep "
            f"(SCHEDULE_MAX_PER_WORKSPACE={cap}); delete one first.",
            code=ScheduleErrorCode.TOO_MANY_SCHEDULES,
            http_status=400,
        )


def _new(
    *, workspace: Workspace, created_by: Any, fields: dict[str, Any], api_key: ApiKey | None
) -> Schedule:
    """A new schedule checked (not saved): a required field missing is named along with
    every other wrong field."""
    schedule = Schedule(workspace=workspace, created_by=created_by, api_key=api_key)
    by = created_by if api_key is None else api_key
    missing = [name for name in ("template", "cron") if not fields.get(name)]
    given = {name: value for name, value in fields.items() if name not in missing}
    problems = [(name, "is required.") for name in missing]
    try:
        _apply(schedule, {"timezone": "UTC", **given}, signed=api_key is not None, by=by)
    except ApplicationError as exc:
        if not problems or exc.http_status != 400:
            raise
        listed = getattr(exc, "details", {}).get("fields")
        if isinstance(listed, dict):
            problems += [(field, m) for field, messages in listed.items() for m in messages]
        else:
            problems.append(_problem(exc))
    if problems:
        raise ScheduleInvalid.every(problems)
    if not schedule.name:
        # Named after its template unless told: lists, mails and the CLI show a name.
        schedule.name = schedule.template.name[:200]
    return schedule


def schedule_check_new(
    *, workspace: Workspace, fields: dict[str, Any], created_by: Any = None
) -> None:
    """What schedule_create would refuse, without saving (the page's form, when part of
    it cannot be sent at all)."""
    _new(workspace=workspace, created_by=created_by, fields=fields, api_key=None)


def schedule_create(
    *,
    workspace: Workspace,
    created_by: Any,
    fields: dict[str, Any],
    api_key: ApiKey | None = None,
) -> Schedule:
    """A new schedule of the workspace, its first tick computed; 400 naming every field
    that is wrong (cron, timezone, data_url, deliveries[i]...)."""
    schedule = _new(workspace=workspace, created_by=created_by, fields=fields, api_key=api_key)
    by = created_by if api_key is None else api_key
    schedule.next_run_at = _next(schedule, now=timezone.now())
    with transaction.atomic():
        _schedule_slot_check(workspace=workspace)
        schedule.save()
        _audit(
            schedule,
            by,
            AuditAction.SCHEDULE_CREATED,
            template=schedule.template.slug,
            cron=schedule.cron,
            timezone=schedule.timezone,
            deliveries=_deliveries(schedule),
        )
    return schedule


def schedule_check(*, schedule: Schedule, fields: dict[str, Any]) -> None:
    """What schedule_update would refuse, without saving (the admin's form)."""
    copy = Schedule.objects.get(pk=schedule.pk)
    _apply(copy, fields, signed=copy.api_key_id is not None)


def schedule_update(*, schedule: Schedule, fields: dict[str, Any], by: Any = None) -> Schedule:
    """Edit, pause (`paused: true`) or resume. A changed cron or zone, or a resume, counts
    the next tick from now: ticks missed while paused do not run. `by`: who edits (a
    person or key), None for an operator (the audit log's `system`)."""
    before = (schedule.cron, schedule.timezone, schedule.paused)
    deliveries_before = _deliveries(schedule)
    _apply(schedule, fields, signed=schedule.api_key_id is not None, by=by)
    if (schedule.cron, schedule.timezone, schedule.paused) != before:
        schedule.next_run_at = _next(schedule, now=timezone.now())
    changes: dict[str, Any] = {"fields": sorted(fields)}
    changes |= audit_changes(
        {"deliveries": deliveries_before}, {"deliveries": _deliveries(schedule)}
    )
    with transaction.atomic():
        schedule.save()
        _audit(schedule, by, AuditAction.SCHEDULE_CHANGED, **changes)
    return schedule


def schedule_delete(*, schedule: Schedule, by: Any = None) -> None:
    """The schedule and its runs go; the jobs its runs made stay (their own retention)."""
    with transaction.atomic():
        _audit(schedule, by, AuditAction.SCHEDULE_DELETED, deliveries=_deliveries(schedule))
        schedule.delete()


def _run_begin(schedule: Schedule, *, trigger: str, scheduled_for: datetime) -> ScheduleRun:
    run = ScheduleRun.objects.create(
        schedule=schedule, trigger=trigger, scheduled_for=scheduled_for
    )
    transaction.on_commit(lambda: dispatch.schedule_run_start_enqueue(run_id=run.run_id))
    return run


def schedule_run_now(*, schedule: Schedule, by: Any = None) -> ScheduleRun:
    """A run outside the cron (paused schedules too); the next tick stays where it was. A
    429 when its mail would pass the workspace's SCHEDULE_MAILS_PER_DAY: nothing runs."""
    if recipients := mail_recipients_of(schedule.deliveries or []):
        mail_quota_check(workspace=schedule.workspace_id, recipients=recipients)
    with transaction.atomic():
        run = _run_begin(schedule, trigger=RunTrigger.MANUAL, scheduled_for=timezone.now())
        _audit(
            schedule,
            by,
            AuditAction.SCHEDULE_RUN_NOW,
            run=str(run.run_id),
            deliveries=_deliveries(schedule),
        )
    return run


def schedule_tick_claim(*, schedule: Schedule, now: datetime) -> ScheduleRun | None:
    """Take the schedule's due tick: next_run_at moves to the first tick after `now` with a
    compare-and-set on the value read, in the transaction that records the run. None if
    another claimer moved it first. However many ticks were missed (beat down), one run."""
    due = schedule.next_run_at
    if due is None or due > now or schedule.paused:
        return None
    if reason := schedule_access_lost(schedule=schedule):
        # Its creator lost access by a path that announced nothing (an operator
        # deactivating the account in the admin): paused here, saying why.
        Schedule.objects.filter(pk=schedule.pk, paused=False).update(
            paused=True, next_run_at=None, paused_reason=reason
        )
        return None
    following = next_tick(schedule.cron, schedule.timezone, after=now)
    with transaction.atomic():
        moved = Schedule.objects.filter(pk=schedule.pk, next_run_at=due, paused=False).update(
            next_run_at=following
        )
        if not moved:
            return None
        return _run_begin(schedule, trigger=RunTrigger.TICK, scheduled_for=due)


def schedules_claim_due(*, now: datetime | None = None, limit: int = 500) -> list[ScheduleRun]:
    """Every due tick claimed (each once, whoever else claims at the same time), taken in
    turns across workspaces: each workspace's earliest due tick, then each one's second...
    so one tenant's many due schedules cannot fill a pass of `limit` before another's."""
    now = now or timezone.now()
    turn = Window(RowNumber(), partition_by=[F("workspace_id")], order_by=F("next_run_at").asc())
    due = (
        Schedule.objects.filter(paused=False, next_run_at__lte=now)
        .select_related("created_by", "api_key")
        .annotate(turn=turn)
        .order_by("turn", "next_run_at")
    )
    runs = []
    for schedule in due[:limit]:
        try:
            run = schedule_tick_claim(schedule=schedule, now=now)
        except ScheduleInvalid:
            # Saved under other croniter rules: park it rather than fail every tick.
            Schedule.objects.filter(pk=schedule.pk).update(paused=True, next_run_at=None)
            continue
        if run is not None:
            runs.append(run)
    return runs
