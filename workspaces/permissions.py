"""The one place that decides who may do what: the role table and `can` / `authorize`.

An actor is a person (their role comes from their membership of the resource's workspace)
or an API key (its own role, in its own workspace only). A resource is a workspace or
anything that belongs to one (a template, a job, a key: it has `workspace_id`). Someone
outside the resource's workspace gets 404, as if it did not exist; a member whose role
is not enough gets 403 naming the roles that are.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404

from core.error_codes import ApiErrorCode
from core.errors import NotFound
from rendering.errors import ApplicationError
from workspaces.models import Membership, Role, Workspace
from workspaces.selectors import membership_role


class Action(StrEnum):
    TEMPLATE_VIEW = "template.view"  # list, read, versions, thumbnails
    TEMPLATE_EDIT = "template.edit"  # create, change (a draft), archive, restore
    TEMPLATE_PUBLISH = "template.publish"  # publish a draft, roll back to a version
    JOB_SUBMIT = "job.submit"  # submit, batch submit, preview a template
    JOB_VIEW = "job.view"  # list, status, events (SSE, WebSocket), webhook deliveries
    JOB_DOWNLOAD = "job.download"  # the PDF, and the signed link to it
    JOB_CANCEL = "job.cancel"
    JOB_RETRY = "job.retry"  # a failed job, from the API or its page
    JOB_REDRIVE = "job.redrive"  # dead letters in the admin: re-drive, discard
    KEY_MANAGE = "key.manage"  # create and revoke the workspace's API keys
    # upload, list and revoke the workspace's signing certificates
    CERTIFICATE_MANAGE = "certificate.manage"
    # name a certificate in a sign step: a template's steps, or a submit's own steps
    CERTIFICATE_USE = "certificate.use"
    MEMBER_MANAGE = "member.manage"  # invite, remove, change roles, transfer ownership
    USAGE_VIEW = "usage.view"  # the workspace's quotas and usage
    SCHEDULE_VIEW = "schedule.view"  # list and read schedules and their runs
    # create, edit, pause and resume, delete, run now: each run submits a job as its creator
    SCHEDULE_MANAGE = "schedule.manage"
    # a schedule's S3 destinations (among the operator's list for the workspace): the worker
    # writes there with the service's own credentials
    SCHEDULE_S3_SET = "schedule.s3"
    AUDIT_VIEW = "audit.view"  # the workspace's audit log: read, search, export
    SSO_MANAGE = "sso.manage"  # which email domains join the workspace by single sign-on
    # make a team workspace (its asker its first owner); asked of the current workspace, so
    # everyone may from their personal one, and a key only in the owner role
    WORKSPACE_CREATE = "workspace.create"


_READ = {Action.TEMPLATE_VIEW, Action.JOB_VIEW, Action.JOB_DOWNLOAD, Action.SCHEDULE_VIEW}
_REQUEST = _READ | {
    Action.JOB_SUBMIT,
    Action.JOB_CANCEL,
    Action.JOB_RETRY,
    Action.SCHEDULE_MANAGE,
}

# The role table, written once: what each role may do in its workspace.
ROLE_ACTIONS: dict[Role, frozenset[Action]] = {
    Role.OWNER: frozenset(Action),
    # An editor builds the templates whose sign steps name the workspace's certificates.
    Role.EDITOR: frozenset(
        _REQUEST
        | {
            Action.TEMPLATE_EDIT,
            Action.TEMPLATE_PUBLISH,
            Action.CERTIFICATE_MANAGE,
            Action.CERTIFICATE_USE,
        }
    ),
    Role.REQUESTER: frozenset(_REQUEST),
    Role.VIEWER: frozenset(_READ),
    Role.OPERATOR: frozenset(_READ | {Action.JOB_CANCEL, Action.JOB_RETRY, Action.JOB_REDRIVE}),
}

# An operator in any workspace does these in every workspace (re-driving dead letters in
# the admin is a job for whoever runs the service, not one team). The API and the pages
# read only the current workspace's rows, so this reaches other workspaces in the admin.
ACROSS_WORKSPACES: dict[Action, Role] = {
    Action.JOB_REDRIVE: Role.OPERATOR,
    Action.JOB_VIEW: Role.OPERATOR,
}


class PermissionDenied(ApplicationError):
    """403; the body names the action and the roles that may do it."""

    http_status = 403
    code = ApiErrorCode.PERMISSION_DENIED

    def __init__(self, message: str, *, action: Action) -> None:
        super().__init__(
            message,
            details={
                "action": action.value,
                "roles_allowed": [role.value for role in roles_allowed(action)],
            },
        )


def roles_allowed(action: Action) -> list[Role]:
    return [role for role in Role if action in ROLE_ACTIONS[role]]


def is_api_key(actor: Any) -> bool:
    return hasattr(actor, "prefix") and hasattr(actor, "digest")


def role_in(actor: Any, workspace_id: int | None) -> Role | None:
    """The actor's role in the workspace, None if they are not in it."""
    if workspace_id is None:
        return None
    if is_api_key(actor):
        return Role(actor.role) if actor.workspace_id == workspace_id else None
    found = membership_role(user=actor, workspace_id=workspace_id)
    return None if found is None else Role(found)


def _across(actor: Any, action: Action) -> bool:
    role = ACROSS_WORKSPACES.get(action)
    if role is None or is_api_key(actor) or not getattr(actor, "is_authenticated", False):
        return False
    return Membership.objects.filter(user=actor, role=role).exists()


def _workspace_id(resource: Any) -> int | None:
    return resource.pk if isinstance(resource, Workspace) else resource.workspace_id


def _decide(actor: Any, action: Action, resource: Any) -> tuple[bool, bool]:
    """(visible, allowed): whether the actor may know the resource exists, and may act."""
    if not is_api_key(actor) and getattr(actor, "is_superuser", False):
        return True, True  # whoever runs the service (the admin); a key is never one
    workspace_id = _workspace_id(resource)
    if workspace_id is None and action == Action.TEMPLATE_VIEW:
        return True, True  # a built-in sample: every workspace reads it
    role = role_in(actor, workspace_id)
    if role is None:
        allowed = _across(actor, action)
        return allowed, allowed
    return True, action in ROLE_ACTIONS[role] or _across(actor, action)


def can(actor: Any, action: Action, resource: Any) -> bool:
    """May the actor (a person or an API key) do `action` to `resource`?"""
    return _decide(actor, action, resource)[1]


def authorize(actor: Any, action: Action, resource: Any, *, missing: str = "") -> None:
    """Raise NotFound (404, with `missing` as its message) if the resource is in a workspace
    the actor is not in, PermissionDenied (403, naming the roles that may) if their role
    may not; return quietly if they may."""
    visible, allowed = _decide(actor, action, resource)
    if allowed:
        return
    if not visible:
        raise NotFound(missing or "Not found.")
    role = role_in(actor, _workspace_id(resource))
    needed = ", ".join(may.value for may in roles_allowed(action))
    raise PermissionDenied(
        f"Your role here is {role.value if role else 'none'}; {action.value} needs one of: "
        f"{needed}.",
        action=action,
    )


def authorize_page(actor: Any, action: Action, resource: Any) -> None:
    """`authorize` for the browser pages: Django's 404 and 403 pages (the 403 names the
    roles that may) instead of the API's JSON errors."""
    try:
        authorize(actor, action, resource)
    except NotFound as exc:
        raise Http404(exc.message) from None
    except PermissionDenied as exc:
        raise DjangoPermissionDenied(exc.message) from None
