"""Schedules in the admin: the list with pause, resume and run-now actions, each schedule's
fields edited through the same service (and checks) as the API, and its runs."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import NON_FIELD_ERRORS
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_records import RecordAdmin
from schedules import services
from schedules.cron import ScheduleInvalid
from schedules.models import Schedule, ScheduleRun
from workspaces.permissions import Action, can, roles_allowed

EDITED_HERE = ("name", "cron", "timezone", "paused", "deliveries")


class ScheduleForm(forms.ModelForm[Schedule]):
    class Meta:
        model = Schedule
        fields = EDITED_HERE

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        original = Schedule.objects.get(pk=self.instance.pk)
        changed = {name: cleaned[name] for name in self.changed_data if name in cleaned}
        try:
            # Checked on a copy: the service's rules, the field named when one is wrong.
            services.schedule_check(schedule=original, fields=changed)
        except ScheduleInvalid as exc:
            # Every wrong field at once, each on its own form field where the form has it.
            errors: dict[str, list[str]] = {}
            listed: dict[str, list[str]] = exc.details["fields"]
            for name, messages_ in listed.items():
                field = str(name).split("[")[0].split(".")[0]
                key = field if field in EDITED_HERE else NON_FIELD_ERRORS
                errors.setdefault(key, []).extend(f"{name}: {m}" for m in messages_)
            raise forms.ValidationError(errors) from None
        self.changed_fields = changed
        return cleaned


class ScheduleRunInline(admin.TabularInline[ScheduleRun, Schedule]):
    model = ScheduleRun
    extra = 0
    can_delete = False
    fields = ("run_id", "trigger", "scheduled_for", "outcome", "error", "job", "finished_at")
    readonly_fields = fields
    ordering = ("-started_at",)
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _each(
    admin_: admin.ModelAdmin[Any],
    request: HttpRequest,
    rows: QuerySet[Schedule],
    do: Any,
    verb: str,
) -> None:
    allowed = [row for row in rows if can(request.user, Action.SCHEDULE_MANAGE, row)]
    if skipped := len(rows) - len(allowed):
        needed = ", ".join(role.value for role in roles_allowed(Action.SCHEDULE_MANAGE))
        admin_.message_user(
            request,
            f"{skipped} skipped: schedule.manage there needs one of: {needed}.",
            level=messages.WARNING,
        )
    for schedule in allowed:
        do(schedule)
    admin_.message_user(request, f"{verb} {len(allowed)} schedule(s).")


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin[Schedule]):
    form = ScheduleForm
    list_display = ("__str__", "workspace", "template", "state", "next_run_at", "last_outcome")
    list_filter = ("paused",)
    search_fields = ("schedule_id", "name", "template__slug", "workspace__name")
    list_select_related = ("workspace", "template")
    actions = ("pause", "resume", "run_now")
    readonly_fields = ("schedule_id", "workspace", "template", "data_url", "next_run_at")
    inlines = (ScheduleRunInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made through the API or the schedules page, with their checks

    def has_change_permission(self, request: HttpRequest, obj: Schedule | None = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or can(request.user, Action.SCHEDULE_MANAGE, obj))

    @admin.display(description="state", ordering="paused")
    def state(self, schedule: Schedule) -> str:
        # Words, not the boolean icon: a green tick read as "fine" for a paused schedule.
        if not schedule.paused:
            return "Active"
        return f"Paused: {schedule.paused_reason}" if schedule.paused_reason else "Paused"

    @admin.display(description="last run")
    def last_outcome(self, schedule: Schedule) -> str:
        last = schedule.runs.order_by("-started_at").first()
        return "-" if last is None else f"{last.outcome} ({last.started_at:%Y-%m-%d %H:%M})"

    def save_model(self, request: HttpRequest, obj: Schedule, form: Any, change: bool) -> None:
        original = Schedule.objects.get(pk=obj.pk)
        services.schedule_update(schedule=original, fields=form.changed_fields)

    def delete_model(self, request: HttpRequest, obj: Schedule) -> None:
        services.schedule_delete(schedule=obj)  # logged as `system`, like the edits

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Schedule]) -> None:
        for schedule in queryset:
            services.schedule_delete(schedule=schedule)

    @admin.action(description="Pause selected schedules")
    def pause(self, request: HttpRequest, queryset: QuerySet[Schedule]) -> None:
        update = services.schedule_update
        _each(
            self, request, queryset, lambda s: update(schedule=s, fields={"paused": True}), "Paused"
        )

    @admin.action(description="Resume selected schedules")
    def resume(self, request: HttpRequest, queryset: QuerySet[Schedule]) -> None:
        update = services.schedule_update
        _each(
            self,
            request,
            queryset,
            lambda s: update(schedule=s, fields={"paused": False}),
            "Resumed",
        )

    @admin.action(description="Run selected schedules now")
    def run_now(self, request: HttpRequest, queryset: QuerySet[Schedule]) -> None:
        _each(self, request, queryset, lambda s: services.schedule_run_now(schedule=s), "Started")


@admin.register(ScheduleRun)
class ScheduleRunAdmin(RecordAdmin[ScheduleRun]):
    list_display = ("run_id", "schedule", "trigger", "scheduled_for", "outcome", "finished_at")
    list_filter = ("outcome", "trigger")
    search_fields = ("run_id", "schedule__schedule_id", "schedule__name")
    list_select_related = ("schedule__template",)
