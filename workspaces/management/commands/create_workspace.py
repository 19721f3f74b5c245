"""manage.py create_workspace NAME --owner USER: a team workspace with its first owner."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from rendering.errors import ApplicationError
from workspaces.services import workspace_create


class Command(BaseCommand):
    help = "Create the workspace NAME with USER as its owner; print its slug."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--owner", required=True, help="Username of its first owner.")

    def handle(self, *args: Any, name: str, owner: str, **options: Any) -> None:
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"No user {owner!r}; create them first (manage.py createsuperuser).")
        try:
            workspace = workspace_create(name=name, owner=user)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(workspace.slug)
