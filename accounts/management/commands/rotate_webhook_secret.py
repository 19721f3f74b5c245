"""manage.py rotate_webhook_secret KEY_PREFIX: a new webhook signing secret for a key."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import ApiKey
from accounts.services import webhook_secret_rotate


class Command(BaseCommand):
    help = (
        "Give the API key with this prefix a new webhook signing secret and print it (shown "
        "once); the old secret keeps signing beside it for WEBHOOK_SECRET_GRACE_SECONDS."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix", help="The key's prefix: rk_<prefix>_…")
        parser.add_argument("--grace-seconds", type=int, default=None)

    def handle(self, *args: Any, prefix: str, grace_seconds: int | None, **options: Any) -> None:
        key = ApiKey.objects.filter(prefix=prefix, revoked_at__isnull=True).first()
        if key is None:
            raise CommandError(f"No active API key with prefix {prefix!r}.")
        grace = settings.WEBHOOK_SECRET_GRACE_SECONDS if grace_seconds is None else grace_seconds
        self.stdout.write(webhook_secret_rotate(key=key, grace_seconds=grace))
