"""manage.py create_api_key USERNAME: create the user if needed and print a new API key."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import api_key_create, user_get_or_create
from rendering.errors import ApplicationError


class Command(BaseCommand):
    help = "Create USERNAME if needed and print a new API key for it (shown only once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="A label to recognise the key by.")
        parser.add_argument(
            "--expires-in-days", type=int, default=None, help="Refuse the key after this long."
        )

    def handle(
        self, *args: Any, username: str, name: str, expires_in_days: int | None, **options: Any
    ) -> None:
        user = user_get_or_create(username=username)
        try:
            key, raw_key = api_key_create(user=user, name=name, expires_in_days=expires_in_days)
        except ApplicationError as exc:  # the tenant's key cap
            raise CommandError(exc.message) from None
        self.stdout.write(raw_key)
        # stderr, so `KEY=$(manage.py create_api_key alice)` still captures only the key.
        self.stderr.write(f"webhook signing secret: {key.webhook_secret}")
