"""The members page (owners: invite, change roles, remove, hand over ownership) and the
page an invitation's link opens."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from rendering.errors import ApplicationError
from workspaces.current import workspace_page_for, workspace_switch
from workspaces.forms import InvitedSignUpForm, InviteForm, RoleForm
from workspaces.invitations import (
    InvitationInvalid,
    invitation_accept,
    invitation_create,
    invitation_link,
    invitation_read,
    invitation_recipient_check,
    invitation_withdraw,
    invitations_pending,
)
from workspaces.models import Workspace
from workspaces.permissions import Action
from workspaces.selectors import membership_list
from workspaces.services import membership_remove, membership_set, ownership_transfer

_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _managed(request: HttpRequest) -> Workspace:
    workspace = workspace_page_for(request, Action.MEMBER_MANAGE)
    return workspace


def _member(workspace: Workspace, user_id: int) -> Any:
    found = get_user_model().objects.filter(pk=user_id, memberships__workspace=workspace).first()
    if found is None:
        raise Http404("No such member.")
    return found


def _members_page(
    request: HttpRequest, workspace: Workspace, *, form: InviteForm | None = None, status: int = 200
) -> HttpResponse:
    context = {
        "workspace": workspace,
        "members": membership_list(workspace=workspace),
        "pending": invitations_pending(workspace=workspace),
        "form": form or InviteForm(),
        "roles": RoleForm.base_fields["role"].choices,  # type: ignore[attr-defined]
    }
    return render(request, "workspaces/members.html", context, status=status)


@never_cache
@login_required
def members(request: HttpRequest) -> HttpResponse:
    workspace = _managed(request)
    if request.method != "POST":
        return _members_page(request, workspace)
    form = InviteForm(request.POST)
    if not form.is_valid():
        return _members_page(request, workspace, form=form, status=400)
    try:
        invitation = invitation_create(
            workspace=workspace,
            email=form.cleaned_data["email"],
            role=form.cleaned_data["role"],
            by=request.user,
        )
    except ApplicationError as exc:
        form.add_error("email", exc.message)
        return _members_page(request, workspace, form=form, status=exc.http_status)
    messages.success(
        request,
        f"Invitation mailed to {invitation.email} as {invitation.role}; the link "
        f"(single-use) is {invitation_link(invitation)}",
    )
    return redirect("members")


def _member_change(
    change: Callable[[HttpRequest, Workspace, int], str],
) -> Callable[[HttpRequest, int], HttpResponse]:
    """A members-page POST about one member: `change(request, workspace, user_id)` makes it
    and says what it did; a refusal it raises (the last owner) is a 400 page with its
    message."""

    @login_required
    @require_POST
    @functools.wraps(change)
    def view(request: HttpRequest, user_id: int) -> HttpResponse:
        workspace = _managed(request)
        try:
            said = change(request, workspace, user_id)
        except ApplicationError as exc:
            messages.error(request, exc.message)
            return _members_page(request, workspace, status=exc.http_status)
        messages.success(request, said)
        return redirect("members")

    return view


@_member_change
def member_role(request: HttpRequest, workspace: Workspace, user_id: int) -> str:
    form = RoleForm(request.POST)
    role = form.cleaned_data["role"] if form.is_valid() else ""
    if not role:
        raise ApplicationError("Pick one of the roles.")
    member = _member(workspace, user_id)
    membership_set(workspace=workspace, user=member, role=role, by=request.user)
    return f"{member.get_username()} is now {role}."


@_member_change
def member_remove(request: HttpRequest, workspace: Workspace, user_id: int) -> str:
    member = _member(workspace, user_id)
    membership_remove(workspace=workspace, user=member, by=request.user)
    return f"{member.get_username()} is no longer a member; their live pages close."


@_member_change
def member_transfer(request: HttpRequest, workspace: Workspace, user_id: int) -> str:
    member = _member(workspace, user_id)
    ownership_transfer(workspace=workspace, to=member, by=request.user)
    return f"{member.get_username()} owns {workspace.name} now; you are an editor."


@login_required
@require_POST
def invitation_withdraw_view(request: HttpRequest, invitation_id: int) -> HttpResponse:
    workspace = _managed(request)
    if not invitation_withdraw(workspace=workspace, invitation_id=invitation_id, by=request.user):
        raise Http404("No such invitation.")
    messages.success(request, "The invitation is withdrawn; its link no longer works.")
    return redirect("members")


def _invalid(request: HttpRequest, exc: InvitationInvalid) -> HttpResponse:
    return render(
        request,
        "workspaces/invitation_invalid.html",
        {"reason": exc.message},
        status=exc.http_status,
    )


@never_cache
def invitation_accept_view(request: HttpRequest, token: str) -> HttpResponse:
    """Signed in: accept with one button. Signed out: sign in (and come back), or make an
    account here for the invited address. A used, expired or altered link: a page that
    says which, with 410."""
    try:
        invitation = invitation_read(token)
    except InvitationInvalid as exc:
        return _invalid(request, exc)
    signed_in = request.user.is_authenticated
    if signed_in:
        try:
            invitation_recipient_check(invitation=invitation, user=request.user)
        except InvitationInvalid as exc:
            return _invalid(request, exc)
    form = None if signed_in else InvitedSignUpForm(email=invitation.email)
    if request.method == "POST":
        user: Any = request.user
        if not signed_in:
            form = InvitedSignUpForm(request.POST, email=invitation.email)
            if not form.is_valid():
                context = {"invitation": invitation, "form": form, "token": token}
                return render(request, "workspaces/invitation.html", context, status=400)
        try:
            with transaction.atomic():  # no account is left behind by a refused link
                if form is not None:
                    user = form.save()
                invitation_accept(token=token, user=user)
        except InvitationInvalid as exc:
            return _invalid(request, exc)
        if form is not None:
            login(request, user, backend=_BACKEND)
        workspace_switch(request, workspace_id=invitation.workspace_id)
        messages.success(request, f"Welcome to {invitation.workspace.name} ({invitation.role}).")
        return redirect("home")
    context = {"invitation": invitation, "form": form, "token": token}
    return render(request, "workspaces/invitation.html", context)
