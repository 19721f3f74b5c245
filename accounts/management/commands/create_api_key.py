"""manage.py create_api_key USERNAME [--workspace NAME --role ROLE]: print a new API key."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import api_key_create, user_get_or_create
from rendering.errors import ApplicationError
from workspaces.models import Role
from workspaces.permissions import Action, can
from workspaces.selectors import workspace_find


class Command(BaseCommand):
    help = (
        "Print a new API key (shown only once) made by USERNAME: for their own workspace "
        "(USERNAME is created if needed), or for --workspace, where they must be an owner."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="A label to recognise the key by.")
        parser.add_argument(
            "--expires-in-days", type=int, default=None, help="Refuse the key after this long."
        )
        parser.add_argument("--workspace", default=None, help="The workspace's slug or name.")
        parser.add_argument(
            "--role",
            default=Role.EDITOR.value,
            help=f"What the key may do: one of {', '.join(Role.values)} (default editor).",
        )

    def handle(
        self,
        *args: Any,
        username: str,
        name: str,
        expires_in_days: int | None,
        workspace: str | None,
        role: str,
        **options: Any,
    ) -> None:
        if role not in Role.values:
            raise CommandError(f"Unknown role {role!r}; use one of: {', '.join(Role.values)}.")
        found = None
        if workspace is not None:
            try:
                found = workspace_find(name=workspace)
            except ApplicationError as exc:
                raise CommandError(exc.message) from None
            user = _existing_user(username)
            if not can(user, Action.KEY_MANAGE, found):
                raise CommandError(
                    f"{username!r} may not make keys of workspace {found.slug!r}: that needs "
                    "the owner role there."
                )
        else:
            user = user_get_or_create(username=username)
        try:
            key, raw_key = api_key_create(
                user=user, name=name, expires_in_days=expires_in_days, workspace=found, role=role
            )
        except ApplicationError as exc:  # the tenant's key cap
            raise CommandError(exc.message) from None
        self.stdout.write(raw_key)
        # stderr, so `KEY=$(manage.py create_api_key alice)` still captures only the key.
        self.stderr.write(f"webhook signing secret: {key.webhook_secret}")


def _existing_user(username: str) -> Any:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"No user {username!r}.")
    return user
