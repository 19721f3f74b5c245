"""ApiKey: an integrator's key to the API; only a SHA-256 digest of the secret is stored."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiKey(models.Model):
    """An integrator key; only a SHA-256 digest of the secret is stored."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # After this the key is refused as if revoked; empty means it does not expire.
    expires_at = models.DateTimeField(null=True, blank=True)
    # Standard Webhooks signing secret (`whsec_` + base64). After a rotation the previous
    # one also signs until `webhook_secret_previous_until`, so receivers can switch over.
    webhook_secret = models.CharField(max_length=80, blank=True)
    webhook_secret_previous = models.CharField(max_length=80, blank=True)
    webhook_secret_previous_until = models.DateTimeField(null=True, blank=True)
    # Where this key's jobs report when a submit names no callback_url.
    default_callback_url = models.URLField(max_length=2000, blank=True)

    class Meta:
        # The table keeps the name it had in the jobs app: the model moved, no data did.
        db_table = "jobs_apikey"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
