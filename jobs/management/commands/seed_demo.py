"""manage.py seed_demo: the demo user, its API key (kept in var/) and the sample templates."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.demo import DEMO_PASSWORD, DEMO_USERNAME
from accounts.services import api_key_authenticate, api_key_create, user_get_or_create
from reports.samples import template_sync_samples


class Command(BaseCommand):
    help = "Create the demo user (password 'demo'), print its API key, sync sample templates."

    def handle(self, *args: Any, **options: Any) -> None:
        user = user_get_or_create(username=DEMO_USERNAME)
        # A new user has password "" and Django counts "" as usable, so has_usable_password()
        # alone would never set the demo password. A password someone set is left alone.
        if not user.password or not user.has_usable_password():
            user.set_password(DEMO_PASSWORD)
            user.is_staff = True
            user.is_superuser = True
            user.save()
        if not user.email:  # so `make run` has job mails to show (saved in var/mail/)
            user.email = "demo@localhost"
            user.save(update_fields=["email"])
        key_file = Path(settings.VAR_DIR) / "demo-api-key"
        raw_key = key_file.read_text().strip() if key_file.exists() else ""
        if not raw_key or api_key_authenticate(raw_key) is None:
            _, raw_key = api_key_create(user=user, name="demo (make run)")
            key_file.parent.mkdir(parents=True, exist_ok=True)
            key_file.write_text(raw_key + "\n")
            os.chmod(key_file, 0o600)
        templates = template_sync_samples()
        self.stdout.write(f"Sample templates: {', '.join(t.slug for t in templates)}")
        self.stdout.write(f"Demo user: {DEMO_USERNAME} / password {DEMO_PASSWORD}")
        self.stdout.write(f"Demo API key: {raw_key}")
