"""ApiKey: an integrator's key to the API; only a SHA-256 digest of the secret is stored."""

from __future__ import annotations

from django.conf import settings
from django.db import models


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

    class Meta:
        # The table keeps the name it had in the jobs app: the model moved, no data did.
        db_table = "jobs_apikey"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"
